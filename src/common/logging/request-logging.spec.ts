import { describe, expect, it } from 'vitest';
import { redactUrl } from './request-logging.js';

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

  it('redacts credentials wherever they appear, also inside a GraphQL document in the query string', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
    expect(redactUrl(`/graphql?query=${encodeURIComponent('{ me { id } }')}&x=${jwt}`)).not.toContain(jwt);
    const signIn = redactUrl(`/graphql?query=${encodeURIComponent('mutation{createToken(input:{email:"a@b.c",password:"hunter2"}){accessToken}}')}`);
    expect(decodeURIComponent(signIn)).toContain('password:"[REDACTED]"');
    expect(signIn).not.toContain('hunter2');
    const variables = redactUrl(`/graphql?query=x&variables=${encodeURIComponent('{"input":{"email":"a@b.c","password":"hunter2"}}')}`);
    expect(variables).not.toContain('hunter2');
    expect(decodeURIComponent(variables)).toContain('"email":"a@b.c"');
    expect(redactUrl('/x?q=blog_abcDEF123_-xyz')).toBe('/x?q=[REDACTED]');
    expect(redactUrl('/x?h=Bearer%20abc.def')).toBe('/x?h=[REDACTED]');
  });
});
