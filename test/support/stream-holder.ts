import { fork, type ChildProcess } from 'node:child_process';
import type { HolderCommand, HolderReply } from './stream-holder-process.ts';

export type { HolderCommand, HolderReply };

/**
 * Subscriptions held open by a process of their own (stream-holder-process.ts), for the memory test of the live doors
 * (test/e2e/live/live-stream-memory.test.ts) and the bench's RSS per idle subscription (bench/live-memory.ts): the gateway's
 * process then holds only the server's side.
 */
export interface StreamHolder {
  /** Opens the command's streams; resolves once each has answered (its first bytes, or its refusal). */
  open(command: Extract<HolderCommand, { kind: 'open' }>): Promise<HolderReply>;
  /** Ends every stream it holds. */
  close(): Promise<void>;
  /** Ends the process. */
  stop(): void;
}

export function startStreamHolder(): StreamHolder {
  const child: ChildProcess = fork(new URL('./stream-holder-process.ts', import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const ask = (command: HolderCommand) =>
    new Promise<HolderReply>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the stream holder exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (reply) => {
        child.off('exit', onExit);
        resolve(reply as HolderReply);
      });
      child.send(command);
    });
  return {
    open: (command) => ask(command),
    close: async () => {
      await ask({ kind: 'close' });
    },
    stop: () => child.kill(),
  };
}
