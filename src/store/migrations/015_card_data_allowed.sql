-- Gateway direct payments (issue 12): raw card data through POST /v2/payments only for merchants the
-- operator marked as able to send it (PCI scope); everyone else sends a token or uses the hosted page.
ALTER TABLE merchants ADD COLUMN card_data_allowed boolean NOT NULL DEFAULT false;
