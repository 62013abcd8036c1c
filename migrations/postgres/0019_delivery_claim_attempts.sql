-- 0019_delivery_claim_attempts (PostgreSQL): which claim of a delivery
-- entry an outcome is for.
--
-- claim_attempt numbers the claims begun on an entry: TakeDeliveryClaim
-- adds one, so each taker (listed -> claiming, or a stale claiming taken
-- again after core.DeliveryLease) has its own number. MarkDeliverySent and
-- FinishDeliveryClaim are accepted from the entry's latest attempt only: a
-- claim whose request outlived its lease cannot write over the claim that
-- took the entry after it. Entries claiming before this column are attempt
-- 0; their next taker is attempt 1.
ALTER TABLE delivery_addresses ADD COLUMN claim_attempt INTEGER NOT NULL DEFAULT 0
    CHECK (claim_attempt >= 0);
