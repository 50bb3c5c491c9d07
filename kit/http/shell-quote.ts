/** One shell word: single-quoted, a quote inside written as '\''. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** One shell word, left bare when it holds nothing the shell would read (for commands people read). */
export const shellWord = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : shellQuote(text));
