-- Each click with its user's name: a regular LEFT JOIN of two streams,
-- whose result is a changelog (a click of a user not seen yet is emitted
-- NULL-padded, then retracted when the user arrives). The header line of
-- users.csv is skipped. Run from the repository root:
--   strand run queries/join_users.sql
CREATE TABLE clicks (ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE)
WITH ('connector' = 'filesystem', 'path' = 'queries/data/clicks.csv', 'format' = 'csv');
CREATE TABLE users (user_id BIGINT, name STRING)
WITH ('connector' = 'filesystem', 'path' = 'queries/data/users.csv', 'format' = 'csv', 'csv.ignore-first-line' = 'true');

SELECT c.ts, c.user_id, u.name, c.url
FROM clicks c LEFT JOIN users u ON c.user_id = u.user_id;
