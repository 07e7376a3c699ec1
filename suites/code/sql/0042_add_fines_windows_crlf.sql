-- Migration 0042: add fines (written on Windows; this file has CRLF line endings).
-- Fines are stored in pence; 25p per day, capped at £10.00 per loan.

BEGIN TRANSACTION;

ALTER TABLE loans ADD COLUMN fine_pence integer NOT NULL DEFAULT 0 CHECK (fine_pence BETWEEN 0 AND 1000);

CREATE TABLE fine_payments (
    payment_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    loan_id      bigint      NOT NULL REFERENCES loans (loan_id),
    amount_pence integer     NOT NULL CHECK (amount_pence > 0),
    paid_at      timestamptz NOT NULL DEFAULT now(),
    method       varchar(10) NOT NULL CHECK (method IN ('cash', 'card', 'waived'))
);

-- Backfill fines for loans already returned late.
UPDATE loans
SET fine_pence = LEAST(1000, 25 * CEIL(EXTRACT(EPOCH FROM (returned_at - due_at)) / 86400.0)::int)
WHERE returned_at > due_at;

INSERT INTO schema_migrations (version, applied_at, description)
VALUES (42, now(), 'add fines and fine_payments');

COMMIT;
