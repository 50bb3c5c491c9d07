import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileSystemWriter } from 'allure-js-commons/sdk/reporter';

/**
 * allure-js-commons' writer, without an fsync per file: it writes each result and attachment through a temporary
 * file that it fsyncs, synchronously, in the Playwright runner's event loop, which cost a full run about 3 s of
 * blocked dispatch (measured with --cpu-prof). Results are read only after the run; a crash loses them either way.
 */
export class UnsyncedFileWriter extends FileSystemWriter {
  private readonly dir: string;
  private made = false;

  constructor(resultsDir: string) {
    super({ resultsDir });
    this.dir = resultsDir;
  }

  override writeAttachment(distFileName: string, content: Buffer): void {
    writeFileSync(this.path(distFileName), content);
  }

  override writeAttachmentFromPath(distFileName: string, from: string): void {
    copyFileSync(from, this.path(distFileName));
  }

  override writeResult(result: { uuid: string }): void {
    writeFileSync(this.path(`${result.uuid}-result.json`), JSON.stringify(result), 'utf8');
  }

  override writeGroup(result: { uuid: string }): void {
    writeFileSync(this.path(`${result.uuid}-container.json`), JSON.stringify(result), 'utf8');
  }

  private path(name: string): string {
    if (!this.made) {
      mkdirSync(this.dir, { recursive: true });
      this.made = true;
    }
    return join(this.dir, name);
  }
}
