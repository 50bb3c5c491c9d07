import { fieldsOf } from '../../schemas/fields.ts';
import { enumDefault, type EnumName } from '../../schemas/registry.ts';

/**
 * A field's value as the document reads it: where 6.3, 3.1 and 3.2 give a default (mfaType OTP, channelType SMS_OTP,
 * verificationStatus UNKNOWN, resendStatus UNKNOWN_RESEND_STATUS, in schemas/enums.schema.json), a field left out or
 * null is that default, as a proto3 JSON writer leaves it out. Without a documented default it stays absent.
 */
export function valueOrDefault(enumName: EnumName | undefined, value: unknown): unknown {
  return value ?? (enumName === undefined ? undefined : enumDefault(enumName));
}

/** The value of a member of a body valid or not against its schema, read with its documented default. */
export function memberOrDefault(schemaId: string, body: Record<string, unknown>, member: string): unknown {
  return valueOrDefault(fieldsOf(schemaId).find((field) => field.name === member)?.enumName, body[member]);
}
