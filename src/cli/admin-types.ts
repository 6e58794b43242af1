import type { Command } from 'commander';
import type { Config } from '../config.js';
import type { AppContainer } from '../main.js';

/** Parsed options of one admin command. */
export type Options = Record<string, unknown>;
/** Declares one admin command under its noun, with the store options. */
export type Leaf = (parent: Command, name: string, description: string) => Command;
/** Runs one admin action against an existing store and prints its JSON answer. */
export type Run = (
  options: Options,
  action: (container: AppContainer, o: Options, config: Config) => Promise<unknown>,
) => Promise<void>;
/** Where a command writes and which environment it reads: the process's, or a test's capture. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env: Record<string, string | undefined>;
}
