-- Monthly lending report: loans per branch, month-over-month change, and the
-- three most borrowed titles per branch. Parameters: :from_month, :to_month (dates).

WITH monthly AS (
    SELECT b.code                                AS branch,
           date_trunc('month', l.loaned_at)::date AS month,
           count(*)                              AS loans,
           count(*) FILTER (WHERE l.returned_at > l.due_at OR (l.returned_at IS NULL AND l.due_at < now())) AS late
    FROM loans l
    JOIN copies c   ON c.copy_id = l.copy_id
    JOIN branches b ON b.branch_id = c.branch_id
    WHERE l.loaned_at >= :from_month
      AND l.loaned_at <  (:to_month::date + interval '1 month')
    GROUP BY 1, 2
)
SELECT branch,
       to_char(month, 'YYYY-MM')                                          AS month,
       loans,
       round(100.0 * late / nullif(loans, 0), 1)                          AS late_pct,
       loans - lag(loans) OVER w                                          AS change,
       round(100.0 * (loans - lag(loans) OVER w) / nullif(lag(loans) OVER w, 0), 1) AS change_pct
FROM monthly
WINDOW w AS (PARTITION BY branch ORDER BY month)
ORDER BY branch, month;

-- Top 3 titles per branch in the period.
SELECT branch, rank, title, loans
FROM (
    SELECT b.code AS branch,
           t.title,
           count(*) AS loans,
           dense_rank() OVER (PARTITION BY b.code ORDER BY count(*) DESC) AS rank
    FROM loans l
    JOIN copies c   USING (copy_id)
    JOIN titles t   USING (title_id)
    JOIN branches b ON b.branch_id = c.branch_id
    WHERE l.loaned_at BETWEEN :from_month AND (:to_month::date + interval '1 month' - interval '1 second')
    GROUP BY b.code, t.title
) ranked
WHERE rank <= 3
ORDER BY branch, rank, title;

-- Members with 3+ overdue items, for the reminder letters ("督促状" for the Japanese-language list).
SELECT m.card_number, m.full_name, m.email, count(*) AS overdue_items, max(o.days_overdue) AS worst
FROM overdue_loans o
JOIN members m USING (card_number)
GROUP BY m.card_number, m.full_name, m.email
HAVING count(*) >= 3
ORDER BY worst DESC, m.full_name
LIMIT 500;
