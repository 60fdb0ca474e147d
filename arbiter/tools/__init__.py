"""Research and benchmark tools beside the product: the product never imports them."""
