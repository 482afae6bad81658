import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Contact, Login, Tenant } from '../src/entities/index.js';
import { SocialFeed, SocialFeedComment, SocialFeedLike } from '../src/entities/social-feed.js';
import { createLogin, createSession } from '../src/services/login/identity.js';
import { createTestTenant, expectStatementsIndependentOfPageSize, graphql, rest, startTestServer, type TestServer, type TestTenant } from './support/harness.js';

let server: TestServer;
let acme: TestTenant;
let other: TestTenant;
/** A second member of acme, to act on someone else's posts. */
let otherMemberToken: string;
let memberContactId: number;
let staffContactId: number;

const YOUTUBE = '<iframe width="560" height="315" src="https://www.youtube.com/embed/dQw4w9WgXcQ" title="Video" frameborder="0" allowfullscreen></iframe>';

beforeAll(async () => {
  server = await startTestServer();
  acme = await createTestTenant(server, 'acme');
  other = await createTestTenant(server, 'other');
  const em = server.orm.em.fork();
  const tenant = await em.findOneOrFail(Tenant, { id: acme.id });
  const second = await createLogin(em, tenant, { email: 'second@acme.example', role: 'member', firstName: 'Otto', lastName: 'Other' });
  otherMemberToken = (await createSession(em, second, 1)).token;
  const logins = await em.find(Login, { tenant: acme.id }, { filters: false });
  memberContactId = logins.find((login) => login.email === 'member@acme.example')!.contact!.id;
  staffContactId = logins.find((login) => login.email === 'staff@acme.example')!.contact!.id;
});
afterAll(() => server.close());

async function createPost(token: string, body: Record<string, unknown> = { MessageText: 'Hello feed' }) {
  const response = await rest(server, 'POST', '/api/social/feeds/0', { token, body });
  expect(response.status).toBe(200);
  return response.body as { SocialFeedId: number; ContactId: string; ContactName: string; CommentsCount: number; FilesCount: number };
}

async function createComment(token: string, feedId: number, text = 'Nice post') {
  const response = await rest(server, 'POST', `/api/social/feeds/${feedId}/comments/0`, { token, body: { CommentText: text } });
  expect(response.status).toBe(200);
  return response.body as { SocialFeedCommentId: number; CommentBy: number; CommentDate: string };
}

describe('social feed posts over REST', () => {
  it('creates, reads, lists and updates a post at the documented paths', async () => {
    const files = [{ FileId: 11, Name: 'agenda.pdf' }, { FileId: 12, Name: 'photo.jpg' }];
    const created = await rest(server, 'POST', '/api/social/feeds/0', {
      token: acme.memberToken,
      body: {
        SocialFeedId: 0, MessageText: 'Our spring meetup', Url: 'https://meetup.example/spring', EmbedCodeHtml: YOUTUBE,
        SocialFeedTypeId: 'Post', MembershipActivationId: null, ContentItemId: 'c-7', SocialFeedFiles: files, SocialFeedFileUpload: 'ignored',
      },
    });
    expect(created.status).toBe(200);
    const id = created.body.SocialFeedId;
    expect(created.body).toEqual({
      SocialFeedId: expect.any(Number), MembershipActivationId: null, ContentItemId: 'c-7', ContactId: String(memberContactId),
      SocialFeedTypeId: 'Post', ContactName: 'Mia Member', CommentsCount: 0, FilesCount: 2,
    });

    const read = await rest(server, 'GET', `/api/social/feeds/${id}`, { token: acme.staffToken });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      SocialFeedId: id, MembershipActivationId: null, ContactId: String(memberContactId), ContentItemId: 'c-7', ContactName: 'Mia Member',
      SocialFeedTypeId: 'Post', Url: 'https://meetup.example/spring', MessageText: 'Our spring meetup', EmbedCodeHtml: YOUTUBE,
      SocialFeedFileUpload: null, SocialFeedFiles: files,
    });

    const list = await rest(server, 'GET', '/api/social/feeds', { token: acme.memberToken });
    expect(list.status).toBe(200);
    expect(list.body.find((row: { SocialFeedId: number }) => row.SocialFeedId === id)).toEqual(created.body);

    // The id in the path wins over the one in the body.
    const updated = await rest(server, 'POST', `/api/social/feeds/${id}`, {
      token: acme.memberToken, body: { SocialFeedId: 999999, MessageText: 'Our spring meetup (moved)', SocialFeedFiles: [files[0]] },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ SocialFeedId: id, FilesCount: 1, ContactId: String(memberContactId) });
    const reread = await rest(server, 'GET', `/api/social/feeds/${id}`, { token: acme.memberToken });
    expect(reread.body).toMatchObject({ MessageText: 'Our spring meetup (moved)', Url: null, EmbedCodeHtml: null, SocialFeedFiles: [files[0]] });
  });

  it('lists newest first by default and pages, orders and filters through options', async () => {
    const first = await createPost(acme.memberToken, { MessageText: 'Ordering one' });
    const second = await createPost(acme.memberToken, { MessageText: 'Ordering two' });
    const list = await rest(server, 'GET', '/api/social/feeds', { token: acme.memberToken });
    const ids = list.body.map((row: { SocialFeedId: number }) => row.SocialFeedId);
    expect(ids.indexOf(second.SocialFeedId)).toBeLessThan(ids.indexOf(first.SocialFeedId));
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));

    const options = encodeURIComponent(JSON.stringify({ Filter: 'ordering', OrderBy: 'SocialFeedId', Take: 1, Skip: 1 }));
    const page = await rest(server, 'GET', `/api/social/feeds?options=${options}`, { token: acme.memberToken });
    expect(page.body.map((row: { SocialFeedId: number }) => row.SocialFeedId)).toEqual([second.SocialFeedId]);
  });

  it('takes the poster from the credential, never from the body', async () => {
    const created = await createPost(acme.memberToken, { MessageText: 'Who am I', ContactId: String(staffContactId), ContactName: 'Someone Else', TenantId: other.id });
    expect(created.ContactId).toBe(String(memberContactId));
    expect(created.ContactName).toBe('Mia Member');
    const stored = await server.orm.em.fork().findOneOrFail(SocialFeed, { id: created.SocialFeedId }, { filters: false });
    expect(stored.tenant.id).toBe(acme.id);
    expect(stored.contact?.id).toBe(memberContactId);
  });

  it('keeps the posts of a deleted contact, without the name', async () => {
    const em = server.orm.em.fork();
    const tenant = await em.findOneOrFail(Tenant, { id: acme.id });
    const login = await createLogin(em, tenant, { email: 'leaver@acme.example', role: 'member', firstName: 'Lea', lastName: 'Ver' });
    const post = await createPost((await createSession(em, login, 1)).token, { MessageText: 'Goodbye' });
    expect(post.ContactName).toBe('Lea Ver');
    await em.nativeUpdate(Contact, { id: login.contact!.id }, { deletedAt: new Date() }, { filters: false });
    const read = await rest(server, 'GET', `/api/social/feeds/${post.SocialFeedId}`, { token: acme.memberToken });
    expect(read.body).toMatchObject({ MessageText: 'Goodbye', ContactId: String(login.contact!.id), ContactName: null });
  });

  it('accepts SocialFeedFileUpload and ignores it', async () => {
    const created = await createPost(acme.memberToken, { MessageText: 'With upload', SocialFeedFileUpload: 'data:application/pdf;base64,AAAA' });
    expect(created.FilesCount).toBe(0);
    const read = await rest(server, 'GET', `/api/social/feeds/${created.SocialFeedId}`, { token: acme.memberToken });
    expect(read.body).toMatchObject({ SocialFeedFileUpload: null, SocialFeedFiles: [] });
  });

  it('answers 404 for an unknown post id on read and save', async () => {
    expect((await rest(server, 'GET', '/api/social/feeds/987654', { token: acme.memberToken })).status).toBe(404);
    const save = await rest(server, 'POST', '/api/social/feeds/987654', { token: acme.memberToken, body: { MessageText: 'x' } });
    expect(save.status).toBe(404);
    expect(save.headers.get('content-type')).toContain('application/problem+json');
    expect((await rest(server, 'POST', '/api/social/feeds/-3', { token: acme.memberToken, body: { MessageText: 'x' } })).status).toBe(404);
  });

  it('matches paths case-insensitively and with a trailing slash', async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Casing' });
    expect((await rest(server, 'GET', '/API/Social/Feeds/', { token: acme.memberToken })).status).toBe(200);
    expect((await rest(server, 'GET', `/api/SOCIAL/feeds/${post.SocialFeedId}/Comments/`, { token: acme.memberToken })).status).toBe(200);
  });
});

describe('embed code', () => {
  async function embed(html: string) {
    return rest(server, 'POST', '/api/social/feeds/0', { token: acme.memberToken, body: { EmbedCodeHtml: html } });
  }
  async function stored(id: number) {
    return (await rest(server, 'GET', `/api/social/feeds/${id}`, { token: acme.memberToken })).body.EmbedCodeHtml;
  }

  it('keeps an iframe from an allowed video host, without scripts, handlers, other tags or text', async () => {
    const response = await embed('<p>Watch <b>this</b></p><script>alert(1)</script><iframe src="https://player.vimeo.com/video/76979871" width="640" height="360" onload="alert(2)" style="x" allow="camera" allowfullscreen>fallback</iframe>');
    expect(response.status).toBe(200);
    expect(await stored(response.body.SocialFeedId)).toBe('<iframe src="https://player.vimeo.com/video/76979871" width="640" height="360" allowfullscreen></iframe>');
  });

  it('drops attribute values that are not plain sizes', async () => {
    const response = await embed('<iframe src="https://www.youtube-nocookie.com/embed/x" width="100&quot; onload=&quot;alert(1)" height="50%"></iframe>');
    expect(response.status).toBe(200);
    expect(await stored(response.body.SocialFeedId)).toBe('<iframe src="https://www.youtube-nocookie.com/embed/x" height="50%"></iframe>');
  });

  it.each([
    ['a host not on the allow-list', '<iframe src="https://evil.example/embed"></iframe>'],
    ['a look-alike host', '<iframe src="https://www.youtube.com.evil.example/embed/x"></iframe>'],
    ['a javascript: URL', '<iframe src="javascript:alert(1)"></iframe>'],
    ['plain http', '<iframe src="http://www.youtube.com/embed/x"></iframe>'],
    ['a protocol-relative URL', '<iframe src="//www.youtube.com/embed/x"></iframe>'],
    ['a script only', '<script>alert(1)</script>'],
    ['srcdoc instead of src', '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
    ['two iframes', `${YOUTUBE}${YOUTUBE}`],
    ['no iframe at all', '<img src="https://www.youtube.com/x.png" onerror="alert(1)">'],
  ])('refuses %s with a 400 naming EmbedCodeHtml', async (_label, html) => {
    const response = await embed(html);
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain('EmbedCodeHtml');
  });
});

describe('comments', () => {
  it('creates, reads, lists and updates comments at the documented paths', async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Comment on me' });
    const feedId = post.SocialFeedId;
    const created = await rest(server, 'POST', `/api/social/feeds/${feedId}/comments/0`, {
      token: otherMemberToken, body: { SocialFeedCommentId: 0, SocialFeedId: 123456, CommentText: '  First!  ', CommentBy: staffContactId, CommentByContact: 'Fake', CommentDate: '2000-01-01T00:00:00Z' },
    });
    expect(created.status).toBe(200);
    const commentId = created.body.SocialFeedCommentId;
    expect(created.body).toEqual({
      SocialFeedCommentId: expect.any(Number), SocialFeedId: feedId, CommentBy: expect.any(Number), CommentByContact: 'Otto Other',
      CommentDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), CommentText: 'First!',
    });
    expect(created.body.CommentBy).not.toBe(staffContactId);
    expect(Date.now() - Date.parse(created.body.CommentDate)).toBeLessThan(60_000);

    await createComment(acme.staffToken, feedId, 'Second');
    const read = await rest(server, 'GET', `/api/social/feeds/${feedId}/comments/${commentId}`, { token: acme.memberToken });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    const list = await rest(server, 'GET', `/api/social/feeds/${feedId}/comments`, { token: acme.memberToken });
    expect(list.status).toBe(200);
    expect(list.body.map((comment: { CommentText: string }) => comment.CommentText)).toEqual(['First!', 'Second']);
    expect(list.body[1]).toMatchObject({ CommentBy: staffContactId, CommentByContact: 'Sam Staff' });

    const feed = await rest(server, 'GET', '/api/social/feeds', { token: acme.memberToken });
    expect(feed.body.find((row: { SocialFeedId: number }) => row.SocialFeedId === feedId).CommentsCount).toBe(2);

    const updated = await rest(server, 'POST', `/api/social/feeds/${feedId}/comments/${commentId}`, {
      token: otherMemberToken, body: { SocialFeedCommentId: 999, CommentText: 'First (edited)' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ ...created.body, CommentText: 'First (edited)' });
  });

  it('pages and orders comments through options', async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Paged comments' });
    for (const text of ['c1', 'c2', 'c3']) await createComment(acme.memberToken, post.SocialFeedId, text);
    const options = encodeURIComponent(JSON.stringify({ OrderBy: 'CommentDate desc', Take: 2 }));
    const page = await rest(server, 'GET', `/api/social/feeds/${post.SocialFeedId}/comments?options=${options}`, { token: acme.memberToken });
    expect(page.body.map((comment: { CommentText: string }) => comment.CommentText)).toEqual(['c3', 'c2']);
  });

  it('answers 404 for an unknown post, an unknown comment, and a comment of another post', async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Owner of a comment' });
    const elsewhere = await createPost(acme.memberToken, { MessageText: 'Another post' });
    const comment = await createComment(acme.memberToken, post.SocialFeedId);
    expect((await rest(server, 'GET', '/api/social/feeds/987654/comments', { token: acme.memberToken })).status).toBe(404);
    expect((await rest(server, 'POST', '/api/social/feeds/987654/comments/0', { token: acme.memberToken, body: { CommentText: 'x' } })).status).toBe(404);
    expect((await rest(server, 'GET', `/api/social/feeds/${post.SocialFeedId}/comments/987654`, { token: acme.memberToken })).status).toBe(404);
    expect((await rest(server, 'POST', `/api/social/feeds/${post.SocialFeedId}/comments/987654`, { token: acme.memberToken, body: { CommentText: 'x' } })).status).toBe(404);
    const wrongPost = `/api/social/feeds/${elsewhere.SocialFeedId}/comments/${comment.SocialFeedCommentId}`;
    expect((await rest(server, 'GET', wrongPost, { token: acme.memberToken })).status).toBe(404);
    expect((await rest(server, 'POST', wrongPost, { token: acme.memberToken, body: { CommentText: 'moved?' } })).status).toBe(404);
  });
});

describe('likes', () => {
  async function likes(feedId: number) {
    return server.orm.em.fork().count(SocialFeedLike, { socialFeed: feedId }, { filters: false });
  }

  it('likes and unlikes idempotently, one like per contact, answering 200 with an empty body', async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Like me' });
    const path = `/api/social/feeds/${post.SocialFeedId}`;
    const first = await rest(server, 'POST', `${path}/like`, { token: acme.memberToken });
    expect(first.status).toBe(200);
    expect(first.text).toBe('');
    expect((await rest(server, 'POST', `${path}/like`, { token: acme.memberToken })).status).toBe(200);
    expect(await likes(post.SocialFeedId)).toBe(1);
    expect((await rest(server, 'POST', `${path}/like`, { token: acme.staffToken })).status).toBe(200);
    expect(await likes(post.SocialFeedId)).toBe(2);

    const unlike = await rest(server, 'POST', `${path}/unlike`, { token: acme.memberToken });
    expect(unlike.status).toBe(200);
    expect(unlike.text).toBe('');
    expect((await rest(server, 'POST', `${path}/unlike`, { token: acme.memberToken })).status).toBe(200);
    expect(await likes(post.SocialFeedId)).toBe(1);
  });

  it('keeps one like when the same contact likes twice at once', async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Raced like' });
    const results = await Promise.all([1, 2, 3].map(() => rest(server, 'POST', `/api/social/feeds/${post.SocialFeedId}/like`, { token: otherMemberToken })));
    expect(results.map((result) => result.status)).toEqual([200, 200, 200]);
    expect(await likes(post.SocialFeedId)).toBe(1);
  });

  it('has a unique constraint on post and contact', async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Constraint' });
    const em = server.orm.em.fork();
    em.create(SocialFeedLike, { tenant: acme.id, socialFeed: post.SocialFeedId, contact: memberContactId });
    em.create(SocialFeedLike, { tenant: acme.id, socialFeed: post.SocialFeedId, contact: memberContactId });
    await expect(em.flush()).rejects.toThrow(/unique/i);
  });

  it('answers 404 for an unknown post', async () => {
    expect((await rest(server, 'POST', '/api/social/feeds/987654/like', { token: acme.memberToken })).status).toBe(404);
    expect((await rest(server, 'POST', '/api/social/feeds/987654/unlike', { token: acme.memberToken })).status).toBe(404);
  });
});

describe('social feeds over GraphQL', () => {
  it('runs the same operations', async () => {
    const saved = await graphql(server,
      'mutation($input: SocialFeedAddEditInput!) { saveSocialFeed(socialFeedId: 0, input: $input) { SocialFeedId ContactId ContactName CommentsCount FilesCount } }',
      { input: { MessageText: 'From GraphQL', SocialFeedFiles: [{ FileId: 5, Name: 'a.txt' }] } }, acme.memberToken);
    expect(saved.status).toBe(200);
    const id = saved.body.data.saveSocialFeed.SocialFeedId;
    expect(saved.body.data.saveSocialFeed).toEqual({ SocialFeedId: id, ContactId: String(memberContactId), ContactName: 'Mia Member', CommentsCount: 0, FilesCount: 1 });

    const comment = await graphql(server,
      'mutation($id: Int!) { saveSocialFeedComment(socialFeedId: $id, socialFeedCommentId: 0, input: { CommentText: "GraphQL comment" }) { SocialFeedCommentId CommentBy CommentByContact CommentText } }',
      { id }, acme.staffToken);
    expect(comment.status).toBe(200);
    const commentId = comment.body.data.saveSocialFeedComment.SocialFeedCommentId;
    expect(comment.body.data.saveSocialFeedComment).toEqual({ SocialFeedCommentId: commentId, CommentBy: staffContactId, CommentByContact: 'Sam Staff', CommentText: 'GraphQL comment' });

    const edited = await graphql(server,
      'mutation($id: Int!, $input: SocialFeedCommentInput!) { saveSocialFeedComment(socialFeedId: $id, input: $input) { SocialFeedCommentId CommentText } }',
      { id, input: { SocialFeedCommentId: commentId, CommentText: 'GraphQL comment, edited' } }, acme.staffToken);
    expect(edited.body.data.saveSocialFeedComment).toEqual({ SocialFeedCommentId: commentId, CommentText: 'GraphQL comment, edited' });

    const liked = await graphql(server, 'mutation($id: Int!) { likeSocialFeed(socialFeedId: $id) }', { id }, acme.memberToken);
    expect(liked.body.data.likeSocialFeed).toBe(true);
    const unliked = await graphql(server, 'mutation($id: Int!) { unlikeSocialFeed(socialFeedId: $id) }', { id }, acme.memberToken);
    expect(unliked.body.data.unlikeSocialFeed).toBe(true);

    const read = await graphql(server, `query($id: Int!, $commentId: Int!) {
      socialFeed(socialFeedId: $id) { SocialFeedId MessageText ContactName SocialFeedFiles { FileId Name } SocialFeedFileUpload }
      socialFeeds(options: { Take: 1000 }) { SocialFeedId CommentsCount }
      socialFeedComments(socialFeedId: $id) { SocialFeedCommentId CommentText }
      socialFeedComment(socialFeedId: $id, socialFeedCommentId: $commentId) { CommentByContact CommentDate }
    }`, { id, commentId }, acme.memberToken);
    expect(read.status).toBe(200);
    expect(read.body.data.socialFeed).toEqual({ SocialFeedId: id, MessageText: 'From GraphQL', ContactName: 'Mia Member', SocialFeedFiles: [{ FileId: 5, Name: 'a.txt' }], SocialFeedFileUpload: null });
    expect(read.body.data.socialFeeds).toContainEqual({ SocialFeedId: id, CommentsCount: 1 });
    expect(read.body.data.socialFeedComments).toEqual([{ SocialFeedCommentId: commentId, CommentText: 'GraphQL comment, edited' }]);
    expect(read.body.data.socialFeedComment).toEqual({ CommentByContact: 'Sam Staff', CommentDate: expect.any(String) });

    const updated = await graphql(server,
      'mutation($input: SocialFeedAddEditInput!) { saveSocialFeed(input: $input) { SocialFeedId FilesCount } }',
      { input: { SocialFeedId: id, MessageText: 'Edited in GraphQL' } }, acme.memberToken);
    expect(updated.body.data.saveSocialFeed).toEqual({ SocialFeedId: id, FilesCount: 0 });

    const missing = await graphql(server, 'query { socialFeed(socialFeedId: 987654) { SocialFeedId } }', {}, acme.memberToken);
    expect(missing.status).toBe(404);
    expect(missing.body.errors?.[0]?.extensions.code).toBe('NOT_FOUND');
  });
});

describe('social feed access', () => {
  // 401 without a credential on every operation, REST and GraphQL: test/sweeps.test.ts.
  it("lets only a post's author or staff edit it (403 for another member), keeping the author", async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Mine' });
    const path = `/api/social/feeds/${post.SocialFeedId}`;
    const stranger = await rest(server, 'POST', path, { token: otherMemberToken, body: { MessageText: 'Not yours' } });
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get('content-type')).toContain('application/problem+json');
    const gql = await graphql(server, 'mutation($id: Int!) { saveSocialFeed(socialFeedId: $id, input: { MessageText: "Not yours" }) { SocialFeedId } }', { id: post.SocialFeedId }, otherMemberToken);
    expect(gql.status).toBe(403);
    expect(gql.body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    expect((await rest(server, 'GET', path, { token: acme.memberToken })).body.MessageText).toBe('Mine');

    const moderated = await rest(server, 'POST', path, { token: acme.staffToken, body: { MessageText: 'Moderated' } });
    expect(moderated.status).toBe(200);
    expect(moderated.body.ContactId).toBe(String(memberContactId));
    // Everyone signed in may still read, comment on and like it.
    expect((await rest(server, 'GET', path, { token: otherMemberToken })).body.MessageText).toBe('Moderated');
    await createComment(otherMemberToken, post.SocialFeedId);
    expect((await rest(server, 'POST', `${path}/like`, { token: otherMemberToken })).status).toBe(200);
  });

  it("lets only a comment's author or staff edit it (403 for another member)", async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Comments here' });
    const comment = await createComment(otherMemberToken, post.SocialFeedId, 'Otto says');
    const path = `/api/social/feeds/${post.SocialFeedId}/comments/${comment.SocialFeedCommentId}`;
    // Not even the post's author may edit someone else's comment.
    expect((await rest(server, 'POST', path, { token: acme.memberToken, body: { CommentText: 'Hijacked' } })).status).toBe(403);
    const moderated = await rest(server, 'POST', path, { token: acme.staffToken, body: { CommentText: 'Moderated' } });
    expect(moderated.status).toBe(200);
    expect(moderated.body.CommentBy).toBe(comment.CommentBy);
  });

  it('refuses to post, comment or like for a login without a contact (403)', async () => {
    const em = server.orm.em.fork();
    const tenant = await em.findOneOrFail(Tenant, { id: acme.id });
    const login = em.create(Login, { tenant, email: 'nocontact@acme.example', contact: null, roles: ['member'] });
    await em.persist(login).flush();
    const token = (await createSession(em, login, 1)).token;
    const post = await createPost(acme.memberToken, { MessageText: 'For contactless' });
    expect((await rest(server, 'POST', '/api/social/feeds/0', { token, body: { MessageText: 'x' } })).status).toBe(403);
    expect((await rest(server, 'POST', `/api/social/feeds/${post.SocialFeedId}/comments/0`, { token, body: { CommentText: 'x' } })).status).toBe(403);
    expect((await rest(server, 'POST', `/api/social/feeds/${post.SocialFeedId}/like`, { token })).status).toBe(403);
    expect((await rest(server, 'GET', '/api/social/feeds', { token })).status).toBe(200);
  });

  it("keeps another tenant's posts and comments invisible and untouchable (404)", async () => {
    const post = await createPost(acme.memberToken, { MessageText: 'Private to acme' });
    const comment = await createComment(acme.memberToken, post.SocialFeedId, 'Acme only');
    const feed = `/api/social/feeds/${post.SocialFeedId}`;
    const commentPath = `${feed}/comments/${comment.SocialFeedCommentId}`;
    const list = await rest(server, 'GET', '/api/social/feeds', { token: other.staffToken });
    expect(list.body.map((row: { SocialFeedId: number }) => row.SocialFeedId)).not.toContain(post.SocialFeedId);
    expect((await rest(server, 'GET', feed, { token: other.staffToken })).status).toBe(404);
    expect((await rest(server, 'POST', feed, { token: other.staffToken, body: { MessageText: 'Hijacked' } })).status).toBe(404);
    expect((await rest(server, 'GET', `${feed}/comments`, { token: other.memberToken })).status).toBe(404);
    expect((await rest(server, 'GET', commentPath, { token: other.memberToken })).status).toBe(404);
    expect((await rest(server, 'POST', commentPath, { token: other.staffToken, body: { CommentText: 'Hijacked' } })).status).toBe(404);
    expect((await rest(server, 'POST', `${feed}/comments/0`, { token: other.memberToken, body: { CommentText: 'Intruder' } })).status).toBe(404);
    expect((await rest(server, 'POST', `${feed}/like`, { token: other.memberToken })).status).toBe(404);
    expect((await rest(server, 'POST', `${feed}/unlike`, { token: other.memberToken })).status).toBe(404);
    const gql = await graphql(server, 'query($id: Int!) { socialFeed(socialFeedId: $id) { MessageText } }', { id: post.SocialFeedId }, other.staffToken);
    expect(gql.status).toBe(404);

    const still = await rest(server, 'GET', feed, { token: acme.memberToken });
    expect(still.body.MessageText).toBe('Private to acme');
    expect((await rest(server, 'GET', commentPath, { token: acme.memberToken })).body.CommentText).toBe('Acme only');
    expect(await server.orm.em.fork().count(SocialFeedComment, { socialFeed: post.SocialFeedId }, { filters: false })).toBe(1);
  });
});

// Broken JSON, a missing body, another media type, ids that are not integers and fields of the
// wrong type: the generated malformed-input sweep (test/sweeps.test.ts). Here: the feed's own rules.
describe('social feed input validation', () => {
  const badPosts: [string, unknown, string][] = [
    ['an over-long MessageText', { MessageText: 'x'.repeat(10001) }, 'MessageText'],
    ['a post without any content', { SocialFeedTypeId: 'Post' }, 'MessageText'],
    ['a post with blank content only', { MessageText: '   ', Url: '' }, 'MessageText'],
    ['a Url that is not a URL', { Url: 'not a url' }, 'Url'],
    ['a javascript: Url', { Url: 'javascript:alert(1)' }, 'Url'],
    ['an over-long SocialFeedTypeId', { MessageText: 'x', SocialFeedTypeId: 'x'.repeat(65) }, 'SocialFeedTypeId'],
    ['SocialFeedFiles that is not an array', { MessageText: 'x', SocialFeedFiles: 'a.pdf' }, 'SocialFeedFiles'],
    ['a file without a Name', { SocialFeedFiles: [{ FileId: 1 }] }, 'SocialFeedFiles[0].Name'],
    ['a FileId that is not an integer', { SocialFeedFiles: [{ FileId: 'one', Name: 'a' }] }, 'SocialFeedFiles[0].FileId'],
    ['an item of SocialFeedFiles that is not an object', { SocialFeedFiles: [5] }, 'SocialFeedFiles[0]'],
    ['a FileId below 1', { SocialFeedFiles: [{ FileId: 0, Name: 'a' }] }, 'SocialFeedFiles.0.FileId'],
    ['too many files', { SocialFeedFiles: Array.from({ length: 21 }, (_, index) => ({ FileId: index + 1, Name: `f${index}` })) }, 'SocialFeedFiles'],
    ['an over-long EmbedCodeHtml', { EmbedCodeHtml: 'x'.repeat(10001) }, 'EmbedCodeHtml'],
  ];

  it.each(badPosts)('rejects %s with a 400 naming the field', async (_label, body, field) => {
    const response = await rest(server, 'POST', '/api/social/feeds/0', { token: acme.memberToken, body });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  const badComments: [string, unknown, string][] = [
    ['a missing CommentText', { SocialFeedCommentId: 0 }, 'CommentText'],
    ['a blank CommentText', { CommentText: '  ' }, 'CommentText'],
    ['an over-long CommentText', { CommentText: 'x'.repeat(5001) }, 'CommentText'],
  ];

  it.each(badComments)('rejects a comment with %s with a 400 naming the field', async (_label, body, field) => {
    const post = await createPost(acme.memberToken, { MessageText: 'Validated comments' });
    const response = await rest(server, 'POST', `/api/social/feeds/${post.SocialFeedId}/comments/0`, { token: acme.memberToken, body });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('names the field on GraphQL too', async () => {
    const response = await graphql(server, 'mutation($input: SocialFeedAddEditInput!) { saveSocialFeed(socialFeedId: 0, input: $input) { SocialFeedId } }', { input: { MessageText: 'x'.repeat(10001) } }, acme.memberToken);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
    expect(response.body.errors?.[0]?.extensions.errors?.[0]?.field).toBe('MessageText');
  });

  it.each([
    [`/api/social/feeds?options=${encodeURIComponent('{"Take":0}')}`, 'options.Take'],
    [`/api/social/feeds?options=${encodeURIComponent('{"OrderBy":"MessageText"}')}`, 'options.OrderBy'],
    [`/api/social/feeds/1/comments?options=${encodeURIComponent('{"Skip":-1}')}`, 'options.Skip'],
  ])('GET %s is a 400 naming %s', async (path, field) => {
    const response = await rest(server, 'GET', path, { token: acme.memberToken });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe(field);
  });

});

describe('social feed list cost', () => {
  it('runs the same number of SQL statements for 5 posts as for 50, with ContactName, CommentsCount and FilesCount', async () => {
    const tenant = await createTestTenant(server, 'bulk');
    const em = server.orm.em.fork();
    const contacts = Array.from({ length: 10 }, (_, index) =>
      em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: `Poster${index}`, lastName: 'Bulk' }));
    await em.flush();
    for (let index = 0; index < 50; index++) {
      const post = em.create(SocialFeed, {
        tenant: tenant.id, contact: contacts[index % contacts.length], messageText: `Bulk ${index}`,
        files: Array.from({ length: index % 3 }, (_, file) => ({ FileId: file + 1, Name: `f${file}` })),
      });
      for (let comment = 0; comment < index % 4; comment++) {
        em.create(SocialFeedComment, { tenant: tenant.id, socialFeed: post, contact: contacts[comment], commentText: `c${comment}` });
      }
    }
    await em.flush();
    // One request first, so once-in-a-while work (the credential's last-use stamp) is not counted.
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.memberToken });
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `/api/social/feeds?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`, { token: tenant.memberToken });
      expect(response.body).toHaveLength(take);
      for (const row of response.body) {
        const index = Number(/Poster(\d+)/.exec(row.ContactName)![1]);
        expect(row.ContactName).toBe(`Poster${index} Bulk`);
        expect(typeof row.CommentsCount).toBe('number');
      }
      const newest = response.body[0];
      expect(newest).toMatchObject({ ContactName: 'Poster9 Bulk', CommentsCount: 49 % 4, FilesCount: 49 % 3 });
    }, 4); // credential, posts, contact names, comment counts

    const gqlCount = async (take: number) => {
      const before = server.statements();
      const response = await graphql(server, 'query($options: ListOptions) { socialFeeds(options: $options) { SocialFeedId ContactName CommentsCount FilesCount } }', { options: { Take: take } }, tenant.memberToken);
      expect(response.body.data.socialFeeds).toHaveLength(take);
      return server.statements() - before;
    };
    expect(await gqlCount(50)).toBe(await gqlCount(5));
  });

  it('runs the same number of SQL statements for 5 comments as for 50', async () => {
    const tenant = await createTestTenant(server, 'bulkcomments');
    const em = server.orm.em.fork();
    const contacts = Array.from({ length: 10 }, (_, index) =>
      em.create(Contact, { tenant: tenant.id, kind: 'person', firstName: `Commenter${index}`, lastName: 'Bulk' }));
    const post = em.create(SocialFeed, { tenant: tenant.id, contact: contacts[0], messageText: 'Busy post', files: [] });
    for (let index = 0; index < 50; index++) {
      em.create(SocialFeedComment, { tenant: tenant.id, socialFeed: post, contact: contacts[index % contacts.length], commentText: `c${index}` });
    }
    await em.flush();
    await rest(server, 'GET', '/api/login/logincheck', { token: tenant.memberToken });
    await expectStatementsIndependentOfPageSize(server, async (take) => {
      const response = await rest(server, 'GET', `/api/social/feeds/${post.id}/comments?options=${encodeURIComponent(JSON.stringify({ Take: take }))}`, { token: tenant.memberToken });
      expect(response.body).toHaveLength(take);
      for (const row of response.body) expect(row.CommentByContact).toMatch(/^Commenter\d Bulk$/);
    }, 4); // credential, post check, comments, contact names
  });
});
