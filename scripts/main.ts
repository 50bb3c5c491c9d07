import { main } from './command.ts';

process.exitCode = main();
