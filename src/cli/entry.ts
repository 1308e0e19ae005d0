// Entry point of the bundle and the standalone binary: always runs the CLI.
import { main } from './main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
