import { randomUUID } from 'node:crypto';
import { expect } from '@playwright/test';
import { operation, tokenEndpoint } from '../../catalog/catalog.ts';
import type { OperationId } from '../../catalog/catalog.ts';
import { isObject } from '../../schemas/json-value.ts';
import type { RunningSandbox } from '../../sandbox/server.ts';
import { sandboxTargetEnv } from '../../sandbox/target-env.ts';

// What selftest/proof-verdict.spec.ts sends the sandbox with: a small client configured the way the suite is
// (sandboxTargetEnv), sending with fetch.

export const secret = 'selftest-token-secret';
type Body = Record<string, unknown>;

export interface Reply {
  status: number;
  text: string;
  /** The JSON body when it is an object, else {}. */
  body: Body;
}

async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, body: isObject(json) ? json : {} };
}

/** A client of one running sandbox, configured the way the suite is: from sandboxTargetEnv. */
export class SandboxClient {
  readonly env: Record<string, string>;
  private readonly tokens = new Map<string, string>();

  constructor(readonly sandbox: RunningSandbox) {
    this.env = sandboxTargetEnv({ url: sandbox.url, flavor: sandbox.flavor, tokenSecret: secret });
  }

  private async token(service: 'identity' | 'stepup'): Promise<string> {
    const cached = this.tokens.get(service);
    if (cached) return cached;
    const reply = await fetch(this.env[service === 'identity' ? 'IDENTITY_TOKEN_URL' : 'STEPUP_TOKEN_URL'] ?? '', {
      method: 'POST',
      headers: { 'content-type': tokenEndpoint.contentType, authorization: `Basic ${this.env['API_KEY'] ?? ''}` },
      body: new URLSearchParams({ grant_type: tokenEndpoint.grantType, scope: tokenEndpoint.scope }).toString(),
    }).then(toReply);
    expect(reply.status, `token for ${service}: ${reply.text}`).toBe(200);
    const token = String(reply.body['access_token']);
    this.tokens.set(service, token);
    return token;
  }

  async op(
    id: OperationId,
    options: {
      body?: unknown;
      headers?: Record<string, string>;
      params?: Record<string, string>;
    } = {},
  ): Promise<Reply> {
    const op = operation(id);
    const [method = 'GET', path = '/'] = (this.env[op.routeEnv ?? ''] ?? '').split(' ');
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(options.params?.[name] ?? ''));
    const headers = {
      authorization: `Bearer ${await this.token(op.service === 'stepup' ? 'stepup' : 'identity')}`,
      'x-client-id': this.env['CLIENT_ID'] ?? '',
      'x-correlation-id': randomUUID(),
      'content-type': 'application/json',
      ...options.headers,
    };
    const body = method === 'GET' ? undefined : JSON.stringify(options.body ?? {});
    const base = op.service === 'stepup' ? this.env['STEPUP_BASE_URL'] : this.env['IDENTITY_BASE_URL'];
    return fetch(`${base}${filled}`, { method, headers, ...(body ? { body } : {}) }).then(toReply);
  }

  fetchCase(caseId: string): Promise<Reply> {
    return this.op('fetchAssessment', { params: { caseId } });
  }
}
