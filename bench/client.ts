import type { FastifyInstance } from 'fastify';

/** One in-process API call as the bench token; answers the JSON body, throws on anything but 2xx. */
export type ApiCall = (method: 'GET' | 'POST' | 'PATCH', url: string, body?: object) => Promise<any>;

export function apiClient(app: FastifyInstance, token: string): ApiCall {
  return async (method, url, body) => {
    const response = await app.inject({ method, url, payload: body, headers: { authorization: `Bearer ${token}` } });
    if (response.statusCode >= 300)
      throw new Error(`${method} ${url} answered ${response.statusCode}: ${response.body}`);
    return response.body === '' ? undefined : response.json();
  };
}
