"""Generated protobuf/gRPC stubs of protos/cardarena (make proto). Do not edit."""
