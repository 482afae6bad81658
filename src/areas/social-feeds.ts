import { defineArea } from '../core/area.js';
import { SocialFeed, SocialFeedComment, SocialFeedLike } from '../entities/social-feed.js';
import { socialFeedResolvers } from '../resolvers/social-feeds.js';
import { socialFeedRoutes } from '../rest/social-feeds.js';
import { seedSocialFeeds } from '../services/social-feeds/social-feeds.js';

export const socialFeedsArea = defineArea({
  name: 'social-feeds',
  entities: [SocialFeed, SocialFeedComment, SocialFeedLike],
  resolvers: [...socialFeedResolvers],
  routes: socialFeedRoutes,
  demo: seedSocialFeeds,
});
