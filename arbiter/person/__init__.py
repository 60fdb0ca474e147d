"""A person's seat: a match with a person at one seat and bots at the others."""
