import { operation, type OperationId } from '../../catalog/catalog.ts';
import type { CallOptions } from '../api.ts';

/**
 * A header name as Go's net/http writes every one (textproto.CanonicalMIMEHeaderKey) and as Java, .NET and curl users
 * type them: each word capitalised, `X-Client-Id`, `Content-Type`, `Authorization`.
 */
export function capitalisedHeaderName(name: string): string {
  return name
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('-');
}

/** The label .NET's StringContent, axios and many other clients put on a JSON body. */
export const JSON_WITH_CHARSET = 'application/json; charset=utf-8';

/**
 * A request HTTP says is the same as the canonical one (lower-case header names, application/json without
 * parameters), written as other clients write it; the requirement that judges it compares the two answers.
 */
export interface SameRequestVariant {
  name: string;
  requirement: 'HDR-NAME-CASE' | 'HDR-JSON-CHARSET';
  change: Pick<CallOptions, 'headerCase' | 'set'>;
  /** Only where the request carries a body (a Content-Type variant). */
  bodyOnly: boolean;
}

export const sameRequestVariants: readonly SameRequestVariant[] = [
  {
    name: 'header names capitalised (X-Client-Id, Content-Type, Authorization), as Go, Java, .NET and curl send them',
    requirement: 'HDR-NAME-CASE',
    change: { headerCase: capitalisedHeaderName },
    bodyOnly: false,
  },
  {
    name: `Content-Type ${JSON_WITH_CHARSET}`,
    requirement: 'HDR-JSON-CHARSET',
    change: { set: { 'content-type': JSON_WITH_CHARSET } },
    bodyOnly: true,
  },
];

/** The variants of one operation's request: the Content-Type ones only where it has a body. */
export function variantsOf(id: OperationId): SameRequestVariant[] {
  return sameRequestVariants.filter((variant) => operation(id).hasBody || !variant.bodyOnly);
}

/** A body no JSON parser can read, made from a valid one, sent with the canonical headers (application/json). */
export interface UnparsableBody {
  name: string;
  text: (body: Record<string, unknown>) => string;
}

export const unparsableBodies: readonly UnparsableBody[] = [
  {
    name: 'a JSON body cut off halfway',
    text: (body) => {
      const json = JSON.stringify(body);
      return json.slice(0, Math.ceil(json.length / 2));
    },
  },
  {
    name: 'the string members form-encoded (not JSON), labelled application/json',
    text: (body) =>
      new URLSearchParams(
        Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      ).toString(),
  },
];

/** The Basic scheme of 4.1 as other clients write it (RFC 9110 §11.1: the auth-scheme is case-insensitive). */
export const basicSchemeSpellings = ['basic', 'BASIC'] as const;

/** The requirements an operation's variants check: those of its variants, and GEN-MALFORMED-BODY with `unparsable`. */
export function variantRequirements(id: OperationId, options: { unparsable: boolean }): string[] {
  const judged = variantsOf(id).map((variant) => variant.requirement as string);
  return [...new Set(judged), ...(options.unparsable && operation(id).hasBody ? ['GEN-MALFORMED-BODY'] : [])];
}

/** The title of an operation's variants check: the variants it sends, in prose. */
export function variantTitle(id: OperationId, options: { unparsable: boolean }): string {
  const op = operation(id);
  const spellings = op.hasBody
    ? 'capitalised header names, application/json; charset=utf-8'
    : 'capitalised header names';
  const unparsable = options.unparsable && op.hasBody ? ', and a body no parser can read without a 5xx' : '';
  return `${op.id} (${op.part}) answers the request as other clients write it (${spellings}) as it answers the canonical one${unparsable}`;
}
