'use strict';
// The string formats the schemas use: ajv-formats' full set, and int64 as proto3 JSON carries it. CommonJS, because the
// validators compiled ahead of time (schemas/validators.ts) require it by path.
const { fullFormats } = require('ajv-formats/dist/formats');

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** ajv-formats defines int64 for numbers; the spec's int64 values travel as strings: decimal digits within the signed 64-bit range. */
function isInt64Decimal(text) {
  if (!/^-?[0-9]{1,19}$/.test(text)) return false;
  const value = BigInt(text);
  return value >= int64Min && value <= int64Max;
}

module.exports = { ...fullFormats, int64: { type: 'string', validate: isInt64Decimal } };
