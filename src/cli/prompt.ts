// Reading a password for a command: from standard input (--password-stdin) or typed at a terminal, not echoed.
import { CliError } from './context.js';

/** The first line of standard input (for scripts: `echo "$PASSWORD" | chute user create ...`). */
export async function readPasswordFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += (chunk as Buffer).toString('utf8');
    if (text.includes('\n')) break;
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new CliError('no password on standard input');
  return password;
}

/** Asks at the terminal without echoing; Ctrl-C ends the command. */
function promptHidden(question: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (error?: CliError) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new CliError('cancelled', 130));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.setRawMode(true);
    input.resume();
    input.on('data', onData);
  });
}

/** A new password: from standard input, or typed twice at a terminal. */
export async function readNewPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readPasswordFromStdin();
  if (!process.stdin.isTTY) {
    throw new CliError('no terminal to ask for the password: pipe it in with --password-stdin');
  }
  const password = await promptHidden('New password: ');
  if (password === '') throw new CliError('the password is empty');
  if ((await promptHidden('Again: ')) !== password) throw new CliError('the two passwords differ');
  return password;
}
