import { describe, expect, it } from 'vitest';
import { prefersHtml, renderHomePage } from '../../lib/http/home-page.ts';

describe('the listeners’ home page (lib/http/home-page.ts)', () => {
  it.each([
    ['Chromium and Firefox opening a page', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8', true],
    ['Safari opening a page', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', true],
    ['a client asking for HTML alone', 'text/html', true],
    ['no Accept header', undefined, false],
    ["curl's default", '*/*', false],
    ['a JSON client', 'application/json', false],
    ['JSON ranked above HTML', 'application/json, text/html;q=0.9', false],
    ['JSON and HTML ranked the same', 'application/json, text/html', false],
    ['HTML refused', 'text/html;q=0, */*', false],
    ['something else only', 'image/png', false],
  ])('tells a browser from an API client: %s', (_who, accept, html) => {
    expect(prefersHtml(accept === undefined ? {} : { accept })).toBe(html);
  });

  it('escapes every value it writes', () => {
    const html = renderHomePage({
      title: 'A <b>title</b>',
      summary: 'x & y',
      sections: [{ heading: '"h"', links: [{ href: 'http://h/?a="><script>', text: "<it's>", note: '<n>' }], lines: ['<l>'] }],
    });
    expect(html).not.toMatch(/<(b|script|it|n|l)>/);
    expect(html).toContain('<a href="http://h/?a=&quot;&gt;&lt;script&gt;">&lt;it&#39;s&gt;</a>');
    expect(html).toContain('<title>A &lt;b&gt;title&lt;/b&gt;</title>');
  });
});
