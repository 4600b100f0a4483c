// Every command of the CLI. A new resource group is one file in this folder and one line here.
import type { Command } from '../command.js';
import { keyCommands } from './keys.js';
import { listenCommands } from './listen.js';
import { merchantCommands } from './merchants.js';
import { reconciliationCommands } from './reconciliation.js';
import { systemCommands } from './system.js';
import { webhookCommands } from './webhooks.js';
import { testClockCommands } from './test-clocks.js';

export const COMMANDS: readonly Command[] = [...merchantCommands, ...keyCommands, ...webhookCommands, ...listenCommands, ...reconciliationCommands, ...systemCommands, ...testClockCommands];
