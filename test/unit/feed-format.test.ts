import { describe, expect, it } from 'vitest';
import { openFeed, type RawRecord } from '../../src/catalog/feed-format';

/**
 * A tab-separated feed whose header is its unquoted first line is split on tabs line by line, and
 * read by csv-parse from the first line it could read otherwise. The reference is csv-parse on the
 * same bytes: a file that opens with a blank line is csv-parse's all the way, with every line one
 * further down.
 */

async function* chunked(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(text: string, size = 7): Promise<RawRecord[]> {
  const out: RawRecord[] = [];
  for await (const r of (await openFeed(chunked(text, size))).records) out.push(r);
  return out;
}

/** csv-parse's records for the same bytes (a leading blank line turns the line splitter off). */
async function reference(text: string): Promise<RawRecord[]> {
  return (await read(`\n${text}`)).map((r) => ({ ...r, line: r.line - 1 }));
}

const HEADER = 'id\ttitle\tdescription\tprice';

describe('tab-separated feeds', () => {
  const cases: Record<string, string> = {
    plain: `${HEADER}\nA-1\tLamp\tA "5" lamp\t12.99 USD\nA-2\tMug\t\t4 USD\n`,
    'no final newline, blank and short lines': `${HEADER}\nA-1\tLamp\tx\t1 USD\n\n   \nA-2\tonly two\nA-3\tMug\ty\t2 USD`,
    'multi-byte text across chunks': `\uFEFF${HEADER}\nA-1\tLampe für Räume\t☕ café — 日本語\t9 EUR\nA-2\tÉtui\t😀\t1 EUR\n`,
    'a quoted field spanning lines, then plain lines': `${HEADER}\nA-1\tLamp\tx\t1 USD\nA-2\tMug\t"two\nlines"\t2 USD\nA-3\tCup\ty\t3 USD\n`,
    'a field opening with a quote mid-file': `${HEADER}\nA-1\tLamp\tx\t1 USD\n"A-2"\tMug\ty\t2 USD\nA-3\tCup\tz\t3 USD\n`,
    'a carriage return mid-file': `${HEADER}\nA-1\tLamp\tx\t1 USD\nA-2\tMug\ty\t2 USD\r\nA-3\tCup\tz\t3 USD\n`,
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`reads ${name} as csv-parse does`, async () => {
      const expected = await reference(text);
      expect(expected.length).toBeGreaterThan(1);
      for (const size of [1, 5, 64, 1 << 16]) expect(await read(text, size)).toEqual(expected);
    });
  }

  it('leaves a file of CRLF lines to csv-parse (a blank first line would change what it detects)', async () => {
    expect(await read(`${HEADER}\r\nA-1\tLamp\tx\t1 USD\r\nA-2\tMug\ty\t2 USD\r\n`)).toEqual([
      { line: 2, values: { id: 'A-1', title: 'Lamp', description: 'x', price: '1 USD' } },
      { line: 3, values: { id: 'A-2', title: 'Mug', description: 'y', price: '2 USD' } },
    ]);
  });

  it('splits plain lines itself and names their lines', async () => {
    expect(await read(`${HEADER}\nA-1\tLamp\tx\t1 USD\n\nA-2\tMug\n`)).toEqual([
      { line: 2, values: { id: 'A-1', title: 'Lamp', description: 'x', price: '1 USD' } },
      { line: 4, error: 'expected 4 fields, found 2' },
    ]);
  });
});
