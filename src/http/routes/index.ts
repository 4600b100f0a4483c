// Every route table the server registers, one line per module.
import type { Route } from '../route.js';
import { merchantPaymentRoutes } from './merchant-payments.js';
import { internalRoutes } from './internal.js';
import { systemRoutes } from './system.js';
import { internalWebhookRoutes } from './internal-webhooks.js';
import { payPageRoutes } from './pay-page.js';
import { sandboxPageRoutes } from './sandbox-pages.js';
import { checkoutRoutes } from './checkout.js';
import { checkoutTestRoutes } from './checkout-test.js';
import { internalCatalogRoutes } from './internal-catalog.js';
import { merchantLinkRoutes } from './merchant-links.js';
import { linkPageRoutes } from './link-page.js';
import { merchantRefundRoutes } from './merchant-refunds.js';
import { embedRoutes } from './embed.js';
import { faviconRoutes } from './favicon.js';
import { sbpMemberRoutes } from './sbp-members.js';
import { internalSbpRoutes } from './internal-sbp.js';
import { homeRoutes } from './home.js';
import { referenceRoutes } from './reference.js';
import { internalReconciliationRoutes } from './internal-reconciliation.js';

import { gatewayChannelRoutes } from './gateway-channels.js';
import { gatewayPayoutRoutes } from './gateway-payouts.js';
import { gatewayCheckoutRoutes } from './gateway-checkout.js';
import { gatewayPaymentRoutes } from './gateway-payments.js';
import { testClockRoutes } from './test-clocks.js';

export const allRoutes: Route[] = [
  ...merchantPaymentRoutes,
  ...internalRoutes,
  ...systemRoutes,
  ...internalWebhookRoutes,
  ...payPageRoutes,
  ...sandboxPageRoutes,
  ...checkoutRoutes,
  ...checkoutTestRoutes,
  ...internalCatalogRoutes,
  ...merchantLinkRoutes,
  ...linkPageRoutes,
  ...merchantRefundRoutes,
  ...embedRoutes,
  ...faviconRoutes,
  ...sbpMemberRoutes,
  ...internalSbpRoutes,
  ...homeRoutes,
  ...referenceRoutes,
  ...internalReconciliationRoutes,

  ...gatewayChannelRoutes,
  ...gatewayPayoutRoutes,
  ...gatewayCheckoutRoutes,
  ...gatewayPaymentRoutes,
  ...testClockRoutes,
];
