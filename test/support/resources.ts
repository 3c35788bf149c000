import type { Response } from 'supertest';
import request from 'supertest';
import { expect } from 'vitest';
import { bearer } from './auth.js';
import type { TestApp } from './test-app.js';

/** Shared checks of the resource API's representations (posts, comments, users). */

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
export const POST_KEYS = [
  '_links', 'authorId', 'body', 'bodyFormat', 'bodyHtml', 'canonicalUrl', 'coverImageId', 'createdAt', 'excerpt', 'id', 'locale', 'metaDescription', 'metaTitle',
  'publishAt', 'publishedAt', 'readingTimeMinutes', 'slug', 'status', 'tags', 'title', 'trashedAt', 'updatedAt',
];
export const COMMENT_KEYS = ['_links', 'authorId', 'body', 'bodyHtml', 'createdAt', 'id', 'parentId', 'postId', 'status', 'updatedAt'];
export const USER_KEYS = ['_links', 'avatarUrl', 'createdAt', 'email', 'id', 'name', 'role', 'updatedAt'];

export interface PostBody {
  id: number;
  title: string;
  body: string;
  authorId: number;
  /** The slugs of its tags, in order. */
  tags: string[];
  /** CONTRACT §13. */
  slug: string;
  bodyFormat: 'plain' | 'markdown' | 'html';
  bodyHtml: string;
  excerpt: string;
  readingTimeMinutes: number;
  metaTitle: string | null;
  metaDescription: string | null;
  canonicalUrl: string | null;
  /** CONTRACT §15: a BCP 47 tag of SUPPORTED_LOCALES. */
  locale: string;
  createdAt: string;
  updatedAt: string;
  _links: Record<string, { href: string; hreflang?: string }>;
}

export interface CommentBody {
  id: number;
  postId: number;
  parentId: number | null;
  status: string;
  body: string;
  authorId: number;
  createdAt: string;
  updatedAt: string;
  _links: Record<string, { href: string }>;
}

/** Exactly the §1 fields of a post plus its `_links`, with the right types and paths. */
export function expectPost(body: Record<string, unknown>, expected: Partial<PostBody> = {}): PostBody {
  expect(Object.keys(body).sort()).toEqual(POST_KEYS);
  expect(Number.isInteger(body.id) && (body.id as number) > 0).toBe(true);
  expect(body.title).toEqual(expect.any(String));
  expect(body.body).toEqual(expect.any(String));
  expect(Number.isInteger(body.authorId)).toBe(true);
  expect(body.createdAt).toMatch(ISO);
  expect(body.updatedAt).toMatch(ISO);
  expect(Array.isArray(body.tags) && body.tags.every((slug) => typeof slug === 'string')).toBe(true);
  const links = body._links as Record<string, unknown>;
  const tags = body.tags as string[];
  expect(links).toEqual({
    self: { href: `/posts/${body.id}` },
    author: { href: `/users/${body.authorId}` },
    comments: { href: `/posts/${body.id}/comments` },
    // Its tags, when it has some; its revisions, for a reader who may read them (test/post-links.e2e-spec.ts).
    ...(tags.length > 0 ? { tags: tags.map((slug) => ({ href: expect.stringMatching(/^\/tags\/\d+$/), name: slug })) } : {}),
    ...('revisions' in links ? { revisions: { href: `/posts/${body.id}/revisions` } } : {}),
    // Its translations the reader may see, when it has some (test/translations.e2e-spec.ts).
    ...('translations' in links ? { translations: expect.arrayContaining([{ href: expect.stringMatching(/^\/posts\/\d+$/), hreflang: expect.any(String) }]) } : {}),
  });
  expect(body.locale).toEqual(expect.any(String));
  expect(body).toMatchObject(expected);
  return body as unknown as PostBody;
}

/** Exactly the §1 fields of a comment plus its `_links`. */
export function expectComment(body: Record<string, unknown>, expected: Partial<CommentBody> = {}): CommentBody {
  expect(Object.keys(body).sort()).toEqual(COMMENT_KEYS);
  expect(Number.isInteger(body.id) && (body.id as number) > 0).toBe(true);
  expect(Number.isInteger(body.postId)).toBe(true);
  expect(body.body).toEqual(expect.any(String));
  expect(Number.isInteger(body.authorId)).toBe(true);
  expect(body.createdAt).toMatch(ISO);
  expect(body.updatedAt).toMatch(ISO);
  expect(body._links).toEqual({
    self: { href: `/comments/${body.id}` },
    post: { href: `/posts/${body.postId}` },
    author: { href: `/users/${body.authorId}` },
    ...(body.parentId === null ? {} : { parent: { href: `/comments/${body.parentId}` } }),
    replies: { href: `/posts/${body.postId}/comments?parentId=${body.id}` },
  });
  expect(body).toMatchObject(expected);
  return body as unknown as CommentBody;
}

/** The `rel="next"` target of a Link header, or null. */
export function nextLink(response: Response): string | null {
  const header = response.headers.link as string | undefined;
  if (!header) return null;
  const match = /<([^>]+)>;\s*rel="next"/.exec(header);
  return match ? match[1] : null;
}

let sequence = 0;

/** Creates a post as the token's owner and returns its JSON representation. */
export async function createPost(
  app: TestApp,
  token: string,
  fields: Record<string, unknown> = {},
): Promise<PostBody> {
  sequence += 1;
  const response = await request(app.server)
    .post('/posts')
    .set(bearer(token))
    .send({ title: `Post ${sequence}`, body: `Body of post ${sequence}`, ...fields });
  expect(response.status, response.text).toBe(201);
  return response.body as PostBody;
}

/** Creates a comment on a post and returns its JSON representation. */
export async function createComment(app: TestApp, token: string, postId: number, body?: string): Promise<CommentBody> {
  sequence += 1;
  const response = await request(app.server)
    .post(`/posts/${postId}/comments`)
    .set(bearer(token))
    .send({ body: body ?? `Comment ${sequence}` });
  expect(response.status, response.text).toBe(201);
  return response.body as CommentBody;
}

/** A new user with a token, for tests that delete or change users. */
export async function createUser(app: TestApp): Promise<{ id: number; token: string; email: string; password: string }> {
  sequence += 1;
  const email = `someone.${sequence}.${process.pid}.${Date.now()}@example.com`;
  const password = 'a-good-password';
  const created = await request(app.server).post('/users').send({ name: `Someone ${sequence}`, email, password });
  expect(created.status, created.text).toBe(201);
  const token = await request(app.server).post('/tokens').send({ email, password }).expect(201);
  return { id: created.body.id as number, token: token.body.accessToken as string, email, password };
}

// ---------------------------------------------------------------------------------------------
// XML: a strict well-formedness check. xmlbuilder2's reader is lenient (it accepts a bare `&` or
// an unclosed element), so it cannot tell a broken document from a good one.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The decoded character data directly inside this element. */
  text: string;
}

const NAME = '[A-Za-z_][\\w.-]*';
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d+)|#x([0-9a-fA-F]+));/g;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: string): string {
  const withoutEntities = raw.replace(ENTITY, '');
  if (withoutEntities.includes('&')) throw new Error(`A bare "&" in ${where}: ${raw}`);
  if (withoutEntities.includes('<')) throw new Error(`A raw "<" in ${where}: ${raw}`);
  return raw.replace(ENTITY, (_all, named: string | undefined, dec: string | undefined, hex: string | undefined) =>
    named ? ENTITIES[named] : String.fromCodePoint(dec ? Number(dec) : parseInt(hex!, 16)),
  );
}

/** Parses an XML document strictly (elements, attributes, text, entities); throws if it is not well-formed. */
export function parseXml(xml: string): XmlElement {
  let rest = xml.replace(/^<\?xml[^?]*\?>/, '');
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const tag = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/?)>`);
  while (rest.length > 0) {
    if (rest.startsWith('<')) {
      const match = tag.exec(rest);
      if (!match) throw new Error(`Not a well-formed tag at: ${rest.slice(0, 60)}`);
      const [all, closing, name, attributeText, selfClosing] = match;
      rest = rest.slice(all.length);
      if (closing) {
        const open = stack.pop();
        if (!open || open.name !== name || attributeText || selfClosing) throw new Error(`Mismatched </${name}>`);
        continue;
      }
      const attributes: Record<string, string> = {};
      for (const attribute of attributeText.matchAll(new RegExp(`(${NAME})\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'g'))) {
        if (attribute[1] in attributes) throw new Error(`Duplicate attribute ${attribute[1]}`);
        attributes[attribute[1]] = decode(attribute[2] ?? attribute[3], `attribute ${attribute[1]}`);
      }
      const element: XmlElement = { name, attributes, children: [], text: '' };
      if (stack.length > 0) stack[stack.length - 1].children.push(element);
      else if (root) throw new Error('More than one root element');
      else root = element;
      if (!selfClosing) stack.push(element);
    } else {
      const end = rest.indexOf('<');
      const raw = end === -1 ? rest : rest.slice(0, end);
      rest = end === -1 ? '' : rest.slice(end);
      if (raw.includes(']]>')) throw new Error(`"]]>" in character data: ${raw}`);
      const text = decode(raw, 'text');
      if (stack.length === 0) {
        if (text.trim() !== '') throw new Error(`Text outside the root element: ${raw}`);
      } else {
        stack[stack.length - 1].text += text;
      }
    }
  }
  if (stack.length > 0) throw new Error(`Unclosed <${stack[stack.length - 1].name}>`);
  if (!root) throw new Error('No root element');
  return root;
}

/** The field children of a resource element as name → text, and its links as rel → href. */
export function xmlFields(element: XmlElement): { fields: Record<string, string>; links: Record<string, string> } {
  const fields: Record<string, string> = {};
  const links: Record<string, string> = {};
  for (const child of element.children) {
    if (child.name === 'link') links[child.attributes.rel] = child.attributes.href;
    else fields[child.name] = child.text;
  }
  return { fields, links };
}
