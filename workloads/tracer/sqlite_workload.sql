-- The trace family's SQL workload (workloads/tracer/family.py): an order book of @rows orders and
-- @rows / 10 customers, built, indexed, queried, updated, pruned and vacuumed in an in-memory
-- database. Run as: sqlite3 :memory: -cmd ".parameter set @rows N" < sqlite_workload.sql
CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, joined INTEGER);
CREATE TABLE orders(id INTEGER PRIMARY KEY, customer INTEGER REFERENCES customers(id), day INTEGER,
                    total REAL, note TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @rows / 10)
INSERT INTO customers SELECT x, 'customer-' || x, 'city-' || (x * 7919 % 101), x % 365 FROM c;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < @rows)
INSERT INTO orders
SELECT x, 1 + (x * 104729 % (@rows / 10)), x % 365, (x * 31337 % 100000) / 100.0,
       printf('order %d of %s', x, hex(x * 2654435761 % 4294967296)) FROM c;
CREATE INDEX orders_customer ON orders(customer, day);
CREATE INDEX customers_city ON customers(city);
SELECT city, count(*), round(sum(total), 2) FROM orders JOIN customers ON customers.id = orders.customer
GROUP BY city ORDER BY 3 DESC LIMIT 5;
SELECT customer, count(*) AS n FROM orders GROUP BY customer HAVING n > 12 ORDER BY n DESC, customer
LIMIT 5;
UPDATE orders SET note = note || ' (late)' WHERE day % 7 = 0;
DELETE FROM orders WHERE total < 50;
SELECT day, count(*), max(total) FROM orders GROUP BY day ORDER BY day LIMIT 3;
SELECT length(group_concat(note, ';')) FROM (SELECT note FROM orders ORDER BY total DESC LIMIT 200);
VACUUM;
SELECT count(*), sum(length(note)) FROM orders;
