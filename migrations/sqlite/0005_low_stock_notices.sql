-- 0005_low_stock_notices (SQLite): the low-stock notice posted where a
-- drop was distributed.

-- low_stock_notice_due is set with low_stock_notified_at when a shortage is
-- noted, and cleared by the one caller that takes the notice to post it in
-- the drop's claim messages; a drop without posts keeps it until it has one.
ALTER TABLE drops ADD COLUMN low_stock_notice_due BOOLEAN NOT NULL DEFAULT FALSE
    CHECK (low_stock_notice_due IN (0, 1));
