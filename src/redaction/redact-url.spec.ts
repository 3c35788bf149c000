import { describe, expect, it } from 'vitest';
import { redactDocument, redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('leaves ordinary URLs alone', () => {
    expect(redactUrl('/posts?limit=20&cursor=djE6NA')).toBe('/posts?limit=20&cursor=djE6NA');
    expect(redactUrl('/posts/7')).toBe('/posts/7');
  });

  it('redacts the values of parameters named like secrets, whatever their case or encoding', () => {
    expect(redactUrl('/graphql?query=x&password=hunter2&limit=1')).toBe('/graphql?query=x&password=[REDACTED]&limit=1');
    expect(redactUrl('/x?Access_Token=abc&API_KEY=def&currentPassword=ghi')).toBe('/x?Access_Token=[REDACTED]&API_KEY=[REDACTED]&currentPassword=[REDACTED]');
    expect(redactUrl('/x?pass%77ord=s3cret')).toBe('/x?pass%77ord=[REDACTED]');
  });

  it("redacts a preview link's token (it opens a draft to whoever holds it)", () => {
    expect(redactUrl('/posts/7?preview=lq2x9k.abcDEF_-0123456789abcdefghijABCDEFGHIJ12345')).toBe('/posts/7?preview=[REDACTED]');
    expect(redactUrl('/posts/7?Preview=t&x=1')).toBe('/posts/7?Preview=[REDACTED]&x=1');
  });

  it('redacts credentials wherever they appear, also inside a GraphQL document in the query string', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    expect(redactUrl(`/graphql?query=${encodeURIComponent('{ me { id } }')}&x=${jwt}`)).not.toContain(jwt);
    const signIn = redactUrl(`/graphql?query=${encodeURIComponent('mutation{createToken(input:{email:"a@b.c",password:"hunter2"}){accessToken}}')}`);
    expect(decodeURIComponent(signIn)).toContain('password:"[REDACTED]"');
    expect(signIn).not.toContain('hunter2');
    const variables = redactUrl(`/graphql?query=x&variables=${encodeURIComponent('{"input":{"email":"a@b.c","password":"hunter2"}}')}`);
    expect(variables).toBe('/graphql?query=x&variables=[REDACTED]');
    expect(redactUrl('/x?q=blog_abcDEF123_-xyz')).toBe('/x?q=[REDACTED]');
    expect(redactUrl('/x?h=Bearer%20abc.def')).toBe('/x?h=[REDACTED]');
  });

  it('never logs GraphQL variables or extensions sent in a GET, nor any string literal of the document', () => {
    const document = 'query Q($id: Int = 1) { post(id: $id) { title @include(if: true) } a: posts(after: "s3cr3t-1") { totalCount } b: x(y: """s3cr3t-2\n""", z: ["s3cr3t-3"]) } # s3cr3t-4';
    const url = `/graphql?operationName=Q&query=${encodeURIComponent(document)}&variables=${encodeURIComponent('{"id":"s3cr3t-5"}')}&extensions=${encodeURIComponent('{"k":"s3cr3t-6"}')}`;
    const logged = redactUrl(url);
    expect(logged).not.toMatch(/s3cr3t/);
    expect(decodeURIComponent(logged.split('&')[1].slice('query='.length))).toBe(
      'query Q($id:Int=1){post(id:$id){title@include(if:true)}a:posts(after:"[REDACTED]"){totalCount}b:x(y:"[REDACTED]" z:["[REDACTED]"])}',
    );
    expect(logged).toContain('operationName=Q&');
    expect(logged).toContain('&variables=[REDACTED]&extensions=[REDACTED]');
    // Form encoding (+ for spaces), any case of the names, and on any path.
    expect(redactUrl('/graphql/stream?QUERY={a(b:+"s3cr3t")}&Variables={}')).toBe(`/graphql/stream?QUERY=${encodeURIComponent('{a(b:"[REDACTED]")}')}&Variables=[REDACTED]`);
  });

  it('a document that does not lex is not logged at all; one that lexes but does not parse keeps its shape', () => {
    expect(redactUrl(`/graphql?query=${encodeURIComponent('{ a(b: "s3cr3t')}`)).toBe('/graphql?query=[REDACTED]');
    expect(redactUrl(`/graphql?query=${encodeURIComponent('{ a(b: """s3cr3t')}`)).toBe('/graphql?query=[REDACTED]');
    expect(redactUrl(`/graphql?query=${encodeURIComponent('{ a(b: "\\udc00 s3cr3t") }')}`)).toBe('/graphql?query=[REDACTED]');
    expect(redactUrl('/graphql?query=%E0%A4%A s3cr3t')).toBe('/graphql?query=[REDACTED]');
    expect(redactDocument('{ a(b: "s3cr3t" }')).toBe('{a(b:"[REDACTED]"}');
    expect(redactDocument('...on T { ...F }')).toBe('...on T{...F}');
    expect(redactDocument('x'.repeat(70_000))).toBeUndefined();
  });
});
