/**
 * Input the user can fix (a file that does not exist, a flag with a bad value): the CLI exits 2 with its
 * message. Apart from documents.ts so that commands which read no documents (the webhook, every command's
 * `-v` flag) do not load the YAML parser to name this class.
 */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}
