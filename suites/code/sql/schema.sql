-- Library lending schema (PostgreSQL 15+).
-- Conventions: snake_case, surrogate bigint keys, timestamps in UTC (timestamptz).

BEGIN;

CREATE EXTENSION IF NOT EXISTS citext;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE branches (
    branch_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    code          varchar(8)   NOT NULL UNIQUE,          -- e.g. 'CTR', 'NTH-2'
    name          text         NOT NULL,
    timezone      text         NOT NULL DEFAULT 'Europe/London',
    opened_on     date         NOT NULL
);

CREATE TABLE members (
    member_id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    card_number   char(12)     NOT NULL UNIQUE CHECK (card_number ~ '^[0-9]{12}$'),
    full_name     text         NOT NULL,                 -- stored as entered: 'Zoë Ødegaard', '山田 太郎'
    email         citext       UNIQUE,
    home_branch   bigint       NOT NULL REFERENCES branches (branch_id),
    joined_at     timestamptz  NOT NULL DEFAULT now(),
    max_loans     smallint     NOT NULL DEFAULT 8 CHECK (max_loans BETWEEN 0 AND 50)
);

CREATE TABLE titles (
    title_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    isbn13        char(13)     UNIQUE,
    title         text         NOT NULL,
    authors       text[]       NOT NULL DEFAULT '{}',
    published     smallint     CHECK (published BETWEEN 1450 AND 2100),
    language      varchar(3)   NOT NULL DEFAULT 'eng'    -- ISO 639-3: 'jpn', 'deu', ...
);

CREATE TABLE copies (
    copy_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title_id      bigint       NOT NULL REFERENCES titles (title_id) ON DELETE CASCADE,
    branch_id     bigint       NOT NULL REFERENCES branches (branch_id),
    barcode       varchar(20)  NOT NULL UNIQUE,
    condition     text         NOT NULL DEFAULT 'good'
                               CHECK (condition IN ('new', 'good', 'worn', 'damaged', 'lost')),
    acquired_on   date         NOT NULL DEFAULT CURRENT_DATE,
    price_pence   integer      CHECK (price_pence >= 0)
);

CREATE TABLE loans (
    loan_id       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    copy_id       bigint       NOT NULL REFERENCES copies (copy_id),
    member_id     bigint       NOT NULL REFERENCES members (member_id),
    loaned_at     timestamptz  NOT NULL DEFAULT now(),
    due_at        timestamptz  NOT NULL,
    returned_at   timestamptz,
    renewals      smallint     NOT NULL DEFAULT 0 CHECK (renewals <= 3),
    CHECK (due_at > loaned_at),
    CHECK (returned_at IS NULL OR returned_at >= loaned_at)
);

-- A copy can be out on at most one open loan at a time.
CREATE UNIQUE INDEX loans_one_open_per_copy ON loans (copy_id) WHERE returned_at IS NULL;
CREATE INDEX loans_member_open ON loans (member_id) WHERE returned_at IS NULL;
CREATE INDEX loans_due ON loans (due_at) WHERE returned_at IS NULL;
CREATE INDEX titles_title_trgm ON titles USING gin (title gin_trgm_ops);

CREATE VIEW overdue_loans AS
SELECT l.loan_id, m.card_number, m.full_name, t.title, c.barcode, l.due_at,
       date_part('day', now() - l.due_at)::int AS days_overdue
FROM loans l
JOIN members m USING (member_id)
JOIN copies  c USING (copy_id)
JOIN titles  t USING (title_id)
WHERE l.returned_at IS NULL AND l.due_at < now();

COMMENT ON TABLE loans IS 'One row per checkout; returned_at stays NULL while the book is out.';

COMMIT;
