-- Each click with its user's level at the time of the click: an
-- event-time temporal join (FOR SYSTEM_TIME AS OF) with the versioned
-- table user_levels, a changelog (debezium-json) keyed by user_id whose
-- changes carry the time they were made. User 1 goes from bronze to silver
-- at 00:00:30 and to gold at 00:01:00; user 4 is deleted at 00:00:45, so
-- its later clicks, like those of user 5 who never had a level, have
-- none. The result appends. Run from the repository root:
--   strand run queries/user_levels.sql
CREATE TABLE clicks (
  ts TIMESTAMP(3), user_id BIGINT, url STRING, amount DOUBLE,
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'queries/data/clicks.csv', 'format' = 'csv');
CREATE TABLE user_levels (
  user_id BIGINT NOT NULL, level STRING, changed TIMESTAMP(3),
  PRIMARY KEY (user_id) NOT ENFORCED,
  WATERMARK FOR changed AS changed
) WITH ('connector' = 'filesystem', 'path' = 'queries/data/user_levels.json', 'format' = 'debezium-json');

SELECT c.ts, c.user_id, l.level, c.url
FROM clicks c LEFT JOIN user_levels FOR SYSTEM_TIME AS OF c.ts AS l ON c.user_id = l.user_id;
