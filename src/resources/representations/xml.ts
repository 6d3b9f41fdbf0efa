/**
 * @module resources/representations/xml
 * XML request bodies: strict UTF-8, well-formed XML 1.0 checked by a conformant parser (saxes),
 * no DOCTYPE, bounded nesting, into a small element tree that no element or attribute name can
 * turn into a prototype write.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { HttpError } from '../../errors/http-error.js';
import { decodeUtf8 } from '../../http/body.js';

export { escapeXml } from '../../http/xml-text.js';

/** An element: its name, attributes (a null-prototype record) and children in document order. */
export interface XmlElement {
  name: string;
  attributes: Readonly<Record<string, string>>;
  /** Elements and text; adjacent text (character data, references, CDATA) is one string. */
  children: XmlNode[];
}

export type XmlNode = XmlElement | string;

export interface ParseXmlOptions {
  /** Deepest element nesting accepted, the document element being 1 (default 64). */
  maxDepth?: number;
}

export const DEFAULT_XML_MAX_DEPTH = 64;

/**
 * Parses a request body as an XML 1.0 document and returns its document element. Anything not
 * well-formed is a 400: invalid UTF-8 (`ROA_ERR_INVALID_UTF8`), an encoding declaration other
 * than UTF-8, a DOCTYPE (`ROA_ERR_XML_DOCTYPE`), nesting past `maxDepth` (`ROA_ERR_XML_TOO_DEEP`),
 * and every well-formedness error saxes reports (`ROA_ERR_MALFORMED_XML`).
 * @example
 *   parseXml(Buffer.from('<a x="1">caf&#233;</a>')) // { name: 'a', attributes: { x: '1' }, children: ['café'] }
 */
export function parseXml(raw: Buffer, options: ParseXmlOptions = {}): XmlElement {
  const text = decodeUtf8(raw);
  const builder = new TreeBuilder(options.maxDepth ?? DEFAULT_XML_MAX_DEPTH);
  // Namespaces are not processed: well-formedness is XML 1.0's, and a body's element names are
  // compared as written. forceXMLVersion keeps XML 1.1's wider character rules out.
  const parser = new SaxesParser({ xmlns: false, defaultXMLVersion: '1.0', forceXMLVersion: true });
  parser.on('xmldecl', (decl) => {
    // The body was decoded as UTF-8; a document claiming another encoding would be misread.
    if (decl.encoding !== undefined && decl.encoding.toLowerCase() !== 'utf-8') {
      throw malformed(`The document declares encoding ${JSON.stringify(decl.encoding)}; only UTF-8 is accepted`, 'ROA_ERR_XML_ENCODING');
    }
  });
  // A DOCTYPE can declare entities (billion laughs, external entities): none is ever expanded,
  // the document is refused as soon as its DOCTYPE is seen.
  parser.on('doctype', () => {
    throw malformed('DOCTYPE declarations are not allowed', 'ROA_ERR_XML_DOCTYPE');
  });
  parser.on('opentag', (tag) => builder.open(tag));
  parser.on('closetag', () => builder.close());
  parser.on('text', (t) => builder.text(t));
  parser.on('cdata', (t) => builder.text(t));
  parser.on('error', (err) => {
    throw malformed(`Malformed XML: ${err.message}`, 'ROA_ERR_MALFORMED_XML');
  });
  parser.write(text).close();
  return builder.root!;
}

function malformed(message: string, code: string): HttpError {
  return new HttpError(400, message, { code });
}

/** Builds the element tree from saxes events, counting depth as it goes. */
class TreeBuilder {
  root: XmlElement | undefined;
  private readonly stack: XmlElement[] = [];

  constructor(private readonly maxDepth: number) {}

  open(tag: SaxesTagPlain): void {
    if (this.stack.length >= this.maxDepth) {
      throw malformed(`Elements nest deeper than ${this.maxDepth} levels`, 'ROA_ERR_XML_TOO_DEEP');
    }
    const element: XmlElement = { name: tag.name, attributes: tag.attributes, children: [] };
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) this.root = element;
    else parent.children.push(element);
    this.stack.push(element);
  }

  close(): void {
    this.stack.pop();
  }

  /** Text outside the document element is whitespace (saxes refuses anything else) and dropped. */
  text(t: string): void {
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) return;
    const last = parent.children.length - 1;
    if (typeof parent.children[last] === 'string') parent.children[last] += t;
    else parent.children.push(t);
  }
}
