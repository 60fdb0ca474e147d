"""The core both sides stand on: the rules engines (``cardarena.games``), the wire codec
(``cardarena.wire``) and its generated stubs (``cardarena.v1``, from protos/ by `make proto`:
do not edit those), and the match-level types (``cardarena.records``, ``cardarena.replay``)."""
