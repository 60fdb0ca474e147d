"""The wire codec: the only place domain values meet protobuf (both the arbiter and the SDK use it)."""
