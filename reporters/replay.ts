/**
 * A failure's evidence, split into the lines that describe it and the replay commands in it (after "Replay:"), so
 * that each report can show a command as a block of its own that pastes into a shell as it is. A command runs from
 * its "Replay:" line to the first line that does not end in a backslash (a token line first, then the curl, which
 * a printf of the body's exact bytes precedes on its first line when the body is not UTF-8 text).
 */
export function splitReplays(detail: string): { evidence: string[]; replays: string[] } {
  const evidence: string[] = [];
  const replays: string[] = [];
  const lines = detail.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const start = /^\s*Replay:\s+/.exec(line);
    if (!start) {
      evidence.push(line);
      continue;
    }
    const command = [line.slice(start[0].length)];
    // The token line, then the curl whose lines end in a backslash up to the last.
    while (
      i + 1 < lines.length &&
      (/\\$/.test(command.at(-1) as string) || /^TOKEN=\$\(/.test(command.at(-1) as string))
    ) {
      i += 1;
      command.push((lines[i] as string).trim());
    }
    replays.push(command.join('\n'));
  }
  return { evidence, replays };
}
