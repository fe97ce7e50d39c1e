// Package cdc is a change data capture consumer on the codec: it reads a
// pgoutput logical replication stream and delivers every committed
// transaction once, in commit order, as typed events whose column values
// decode through github.com/jackc/pgx/v5/pgtype.
//
// The pieces, each usable alone:
//
//   - Assembler turns the pgoutput messages of a stream into events: it
//     keeps the relation cache (a RelationChanged event when a Relation
//     message changes a table's columns), registers the types Type messages
//     announce, marks unchanged TOAST columns and fills them from a
//     REPLICA IDENTITY FULL old tuple, holds streamed transactions until
//     Stream Commit and drops them on Stream Abort (a subtransaction's abort
//     drops only its changes), and delivers two-phase transactions as
//     prepare, commit prepared and rollback prepared.
//   - Streamed transactions are held within Config.MemoryLimit; past it
//     they spill to files in Config.SpillDir. Stopping instead would never
//     end: the slot would send the same transaction, past the same limit,
//     after every restart.
//   - Acks records the commit boundaries delivered and the one the
//     application confirmed; only confirmed boundaries are reported to the
//     server.
//   - Consumer runs it all over a session.Conn: it finds or creates the
//     slot, picks proto_version and options by the server's major, starts
//     replication after the last confirmed position, and sends standby
//     status updates on a timer and whenever a keepalive asks for one.
//
// Events and the bytes they point to are valid only during the handler
// call that receives them; Relation values stay valid for good.
package cdc
