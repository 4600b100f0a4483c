// Every route table the server registers, one line per module.
import type { Route } from '../route.js';
import { merchantPaymentRoutes } from './merchant-payments.js';
import { internalRoutes } from './internal.js';
import { systemRoutes } from './system.js';
import { internalWebhookRoutes } from './internal-webhooks.js';
import { webRoutes } from '../../web/pay-page.js';
import { checkoutRoutes } from './checkout.js';
import { checkoutTestRoutes } from './checkout-test.js';
import { internalCatalogRoutes } from './internal-catalog.js';

export const allRoutes: Route[] = [
  ...merchantPaymentRoutes,
  ...internalRoutes,
  ...systemRoutes,
  ...internalWebhookRoutes,
  ...webRoutes,
  ...checkoutRoutes,
  ...checkoutTestRoutes,
  ...internalCatalogRoutes,
];
