// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Type-aware lint over the whole TypeScript tree. The rules that catch real server bugs
 * (floating and misused promises, non-exhaustive switches) are errors; a rule turned off
 * below says why.
 */
export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'packages/*/dist/', 'data/', 'coverage/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'vitest.config.ts', '.dependency-cruiser.cjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Fastify hooks and handlers are async by contract (a hook that returns nothing must
      // return a promise), as are interface methods some implementations await in.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Generic constraints over Kysely's builders (any table set) need `any`; what matters,
      // reading or passing an untyped value, is what the no-unsafe-* rules catch.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // Tests and benchmarks read HTTP answers as untyped JSON and check them with assertions;
    // typing every body would restate the API in the tests without catching anything more.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['eslint.config.js', 'vitest.config.ts'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
