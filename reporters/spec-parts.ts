import { interfaceInfo } from '../catalog/catalog.ts';

/** Where the interface document lives next to the repository (see STYLE.md); a clone does not carry it. */
export const SPEC_DOCUMENT = `../shared/spec/${interfaceInfo.document}`;

export interface SpecPart {
  /** The catalog's part, e.g. "4.1" or "5.3" (an item of the numbered list of part 5). */
  part: string;
  /** The heading the part falls under, without its number, e.g. "Token endpoint"; empty for a part no heading has. */
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

/** A numbered heading's text: "4.1 Token endpoint", "5. Authentication". */
const NUMBERED = /^(\d+(?:\.\d+)*)\.?\s+(.*)$/;

/** The numbered headings of the document (parts 1 to 9 and their sections) as written, without their #. */
export function documentHeadings(markdown: string): string[] {
  return markdown
    .split('\n')
    .map((line) => /^#{2,4}\s+(.*)$/.exec(line.trim())?.[1]?.trim() ?? '')
    .filter((heading) => NUMBERED.test(heading));
}

function parseHeading(heading: string): Heading {
  const [, number = '', title = ''] = NUMBERED.exec(heading) ?? [];
  return { number, title: title.trim(), anchor: headingAnchor(heading) };
}

/**
 * Resolves the catalog's parts to the document's headings (catalog/requirements.json, interface.headings): "4.1" to
 * "### 4.1 Token endpoint", "5.3" (an item of a numbered list) to "## 5. Authentication". With SPEC_URL, a part links
 * to its heading there (or to the document, for a part no heading has); without it, a part has its title and no link,
 * since a file path of the machine that ran would not open anywhere else.
 */
export class SpecParts {
  private readonly headings: Heading[];

  constructor(
    private readonly documentUrl: string | undefined,
    headings: readonly string[] = interfaceInfo.headings,
  ) {
    this.headings = headings.map(parseHeading);
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
