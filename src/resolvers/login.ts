import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../core/context.js';
import { AboutMe, MagicLinkRedeemInput, SecurityQuestion, SessionToken } from '../schema/login.js';
import * as login from '../services/login.js';
import { redeemMagicLink, requestMagicLinks } from '../services/magic-links.js';

@Resolver()
export class LoginResolver {
  @Authorized()
  @Query(() => AboutMe, { description: "The caller's tenant, contact and roles." })
  aboutMe(@Ctx() ctx: RequestContext) {
    return login.aboutMe(ctx);
  }

  @Authorized()
  @Query(() => Boolean, { description: 'True with a valid credential (401 without).' })
  loginCheck(): boolean {
    return true;
  }

  @Authorized()
  @Query(() => Boolean, { description: 'True when the login belongs to the tenant with that key (401 otherwise).' })
  clientAuthCheck(@Ctx() ctx: RequestContext, @Arg('loginId', () => Int) loginId: number, @Arg('tenantKey', () => String) tenantKey: string) {
    return login.clientAuthCheck(ctx, loginId, tenantKey);
  }

  @Query(() => [SecurityQuestion], { description: 'Questions offered for account recovery (public).' })
  async securityQuestions(@Ctx() ctx: RequestContext): Promise<SecurityQuestion[]> {
    return (await login.securityQuestions(ctx.em)).map((question) => ({ Id: question.id, Name: question.name }));
  }

  @Mutation(() => Boolean, { description: 'Removes a user and its sessions everywhere; needs the server master key.' })
  async deleteLogin(@Ctx() ctx: RequestContext, @Arg('username', () => String) username: string, @Arg('masterKey', () => String) masterKey: string) {
    await login.deleteLoginEverywhere(ctx.app, ctx.em, username, masterKey);
    return true;
  }

  @Mutation(() => Boolean, { description: 'Sends a sign-in link to each known address; answers the same for unknown ones.' })
  async requestMagicLink(
    @Ctx() ctx: RequestContext,
    @Arg('emails', () => [String], { description: 'E-mail addresses (REST: the JSON array body).' }) emails: string[],
    @Arg('type', () => String, { nullable: true, description: 'Portal to sign in to: hub (default) or staff.' }) type?: string | null,
  ) {
    await requestMagicLinks(ctx.app, ctx.em, emails, type);
    return true;
  }

  @Mutation(() => SessionToken, { description: 'Exchanges a sign-in link token (once) for a session token.' })
  async redeemMagicLink(@Ctx() ctx: RequestContext, @Arg('input', () => MagicLinkRedeemInput) input: MagicLinkRedeemInput): Promise<SessionToken> {
    const session = await redeemMagicLink(ctx.app, ctx.em, input.Token);
    return { Token: session.token, ExpiresAt: session.expiresAt?.toISOString() ?? null };
  }
}
