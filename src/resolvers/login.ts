import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { RuledArg } from '../core/argument-rules.js';
import type { RequestContext } from '../core/context.js';
import { AboutMe, MagicLinkRedeemInput, SecurityQuestion, SessionToken } from '../schema/login.js';
import * as login from '../services/login/login.js';
import { EMAILS_RULE, LOGIN_TYPE_RULE, redeemMagicLink, requestMagicLinks, type LoginType } from '../services/login/magic-links.js';

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
  securityQuestions(@Ctx() ctx: RequestContext) {
    return login.securityQuestions(ctx);
  }

  @Mutation(() => Boolean, { description: 'Removes a user and its sessions everywhere; needs the server master key.' })
  deleteLogin(@Ctx() ctx: RequestContext, @Arg('username', () => String) username: string, @Arg('masterKey', () => String) masterKey: string) {
    return login.deleteLoginEverywhere(ctx, username, masterKey);
  }

  @Mutation(() => Boolean, { description: 'Sends a sign-in link to each known address; answers the same for unknown ones.' })
  requestMagicLink(
    @Ctx() ctx: RequestContext,
    @RuledArg('emails', EMAILS_RULE, { description: 'E-mail addresses (REST: the JSON array body).', type: () => [String] }) emails: string[],
    @RuledArg('type', LOGIN_TYPE_RULE, { nullable: true, description: 'Portal to sign in to: hub (default) or staff.' }) type?: LoginType | null,
  ) {
    return requestMagicLinks(ctx, emails, type);
  }

  @Mutation(() => SessionToken, { description: 'Exchanges a sign-in link token (once) for a session token.' })
  redeemMagicLink(@Ctx() ctx: RequestContext, @Arg('input', () => MagicLinkRedeemInput) input: MagicLinkRedeemInput) {
    return redeemMagicLink(ctx, input.Token);
  }
}
