import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { interfaceInfo } from '../catalog/catalog.ts';

/** Where the interface document lives next to the repository (see STYLE.md); SPEC_URL overrides the link base. */
export const SPEC_DOCUMENT = `../shared/spec/${interfaceInfo.document}`;

export interface SpecPart {
  /** The catalog's part, e.g. "4.1" or "5.3" (an item of the numbered list of part 5). */
  part: string;
  /** The heading the part falls under, without its number, e.g. "Token endpoint"; empty when the document is not at hand. */
  title: string;
  /** A link to that heading, when SPEC_URL says where the document is published (never a path of this machine). */
  url?: string;
}

interface Heading {
  number: string;
  title: string;
  anchor: string;
}

/** GitHub's heading anchors: lower case, punctuation other than - and _ dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

export function parseHeadings(markdown: string): Heading[] {
  const headings: Heading[] = [];
  for (const line of markdown.split('\n')) {
    const match = /^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s+(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, number = '', title = ''] = match;
    headings.push({ number, title: title.trim(), anchor: headingAnchor(line.replace(/^#+/, '')) });
  }
  return headings;
}

/**
 * Resolves the catalog's parts to the document's headings: "4.1" to "### 4.1 Token endpoint", "5.3" (an item of a
 * numbered list) to "## 5. Authentication". With SPEC_URL, a part links to its heading there (or to the document when
 * the local copy is missing); without it, a part has its title and no link, since a file path of the machine that ran
 * would not open anywhere else.
 */
export class SpecParts {
  private readonly headings: Heading[];

  constructor(
    private readonly documentUrl: string | undefined,
    markdown: string | undefined,
  ) {
    this.headings = markdown === undefined ? [] : parseHeadings(markdown);
  }

  static load(repoRoot: string, specUrl?: string): SpecParts {
    const path = resolve(repoRoot, SPEC_DOCUMENT);
    const markdown = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    return new SpecParts(specUrl, markdown);
  }

  of(part: string): SpecPart {
    const segments = part.split('.');
    for (let length = segments.length; length > 0; length -= 1) {
      const found = this.headings.find((h) => h.number === segments.slice(0, length).join('.'));
      if (found)
        return {
          part,
          title: found.title,
          ...(this.documentUrl ? { url: `${this.documentUrl}#${found.anchor}` } : {}),
        };
    }
    return { part, title: '', ...(this.documentUrl ? { url: this.documentUrl } : {}) };
  }
}
