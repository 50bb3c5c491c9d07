import { enumValues } from '../../schemas/registry.ts';
import { valueOrDefault } from '../case/documented-default.ts';
import type { StepUpChannel } from '../builders/identity-bodies.ts';

/** The step-up channels that start a verification session by message. */
export type MessageChannel = Exclude<StepUpChannel, 'images'>;

/** The word a ChannelType value begins with for each channel of a step-up (SMS_OTP, EMAIL_NONCE_OTH). */
const channelWord: Readonly<Record<MessageChannel, string>> = { phone: 'SMS', email: 'EMAIL' };

/**
 * EVT-SESSION-CHANNEL-MATCH: whether a verification session event's channelType names the other channel than the
 * step-up used. 6.3 defines channelType as the mfa type combined with the channel (email or SMS) used; a value left
 * out or null is the enumeration's default (SMS_OTP). STANDALONE_NONCE_OTH names neither channel, and a value outside
 * the enumeration is EVT-SESSION-CHANNEL-ENUM's to judge: neither contradicts.
 */
export function channelTypeContradicts(channel: MessageChannel, value: unknown): boolean {
  const type = valueOrDefault('ChannelType', value);
  if (typeof type !== 'string' || !enumValues('ChannelType').includes(type)) return false;
  const word = type.split('_')[0] as string;
  return Object.values(channelWord).includes(word) && word !== channelWord[channel];
}
