import { describe, expect, it } from 'vitest';
import { DEFAULT_PG_POOL_SIZE, loadConfig } from '../../src/config.js';

/** Every setting is read and checked once, in src/config.ts; a bad value stops the start with its name. */
describe('the PostgreSQL pool size setting', () => {
  it(`reads WSX_PG_POOL_SIZE as a whole number from 1 to 1000, default ${DEFAULT_PG_POOL_SIZE}`, () => {
    expect(loadConfig({}).pgPoolSize).toBe(DEFAULT_PG_POOL_SIZE);
    expect(loadConfig({ WSX_PG_POOL_SIZE: '25' }).pgPoolSize).toBe(25);
    for (const bad of ['0', '1001', 'many', '2.5'])
      expect(() => loadConfig({ WSX_PG_POOL_SIZE: bad }), bad).toThrow(/WSX_PG_POOL_SIZE/);
  });
});
