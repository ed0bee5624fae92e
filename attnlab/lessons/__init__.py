"""One module (or package) per notebook: what that notebook needs and no other."""
