import { expect } from 'chai';
import {
  cleanText,
  escapeHtml,
  escapeMarkdown,
  linkifyHtml,
  linkifyMarkdown,
  xmlSafe,
} from './escape.ts';

describe('report: escaping', function () {
  it('escapes HTML text and attribute characters', function () {
    expect(escapeHtml(`<a href="x">'&'</a>`)).to.equal(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
  });

  it('drops ANSI colours and marks other control characters', function () {
    expect(cleanText('\u001b[1;31mred\u001b[0m\u0007ok\tnext\n')).to.equal('red\uFFFDok\tnext\n');
  });

  it('neutralises Markdown syntax and keeps a table row on one line', function () {
    expect(escapeMarkdown('a | *b* _c_ `d` [e](f) <g>\n~h~')).to.equal(
      'a \\| \\*b\\* \\_c\\_ \\`d\\` \\[e\\](f) &lt;g&gt; \\~h\\~',
    );
  });

  it('makes text storable in XML CDATA', function () {
    expect(xmlSafe('x ]]> y \u0000 \uD800 z')).to.equal('x ]] > y \uFFFD \uFFFD z');
  });

  it('links only http(s) URLs, without trailing punctuation', function () {
    expect(linkifyHtml('see https://e.x/a?b=1&c=2. javascript:alert(1) <b>')).to.equal(
      'see <a href="https://e.x/a?b=1&amp;c=2">https://e.x/a?b=1&amp;c=2</a>. javascript:alert(1) &lt;b&gt;',
    );
    expect(linkifyMarkdown('(https://e.x/a_b) *x*')).to.equal(
      '([https://e.x/a\\_b](https://e.x/a_b)) \\*x\\*',
    );
  });
});
