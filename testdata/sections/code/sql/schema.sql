-- Schema of the shop.
CREATE EXTENSION IF NOT EXISTS pgcrypto;

-- Customers of the shop.
CREATE TABLE customers (
    id SERIAL PRIMARY KEY,
    name TEXT NOT NULL
);

CREATE TABLE orders (
    id SERIAL PRIMARY KEY,
    customer_id INT REFERENCES customers (id),
    total NUMERIC(10, 2)
);

CREATE INDEX orders_customer ON orders (customer_id);

-- Big spenders.
CREATE VIEW big_spenders AS
SELECT c.name, SUM(o.total) AS spent
FROM customers c
JOIN orders o ON o.customer_id = c.id
GROUP BY c.name;

INSERT INTO customers (name) VALUES ('Ada');
