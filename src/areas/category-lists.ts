import { defineArea } from '../core/area.js';
import { CategoryItem, CategoryList } from '../entities/category-list.js';
import { CategoryListResolver } from '../resolvers/category-lists.js';
import { categoryListRoutes } from '../rest/category-lists.js';
import { seedCategoryLists } from '../services/category-lists/category-lists.js';

/** Category lists and their items, by category type; system lists seeded per tenant. */
export const categoryListsArea = defineArea({
  name: 'category-lists',
  entities: [CategoryList, CategoryItem],
  resolvers: [CategoryListResolver],
  routes: categoryListRoutes,
  demo: seedCategoryLists,
});
