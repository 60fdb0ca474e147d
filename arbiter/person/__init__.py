"""A person at the table: the tables (matches with a person at one seat and bots at the others) and the browser's seat."""
