"""The one batch engine: plays a plan of matches (deals, seatings, seeds) and stores them."""
