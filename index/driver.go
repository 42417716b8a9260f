package index

import (
	"context"
	"database/sql"
	"database/sql/driver"

	"github.com/grimoire-search/grimoire/fault"
	"modernc.org/sqlite"
)

// openSQL opens the SQLite database dsn names through a driver that marks
// SQLite's corruption errors as fault.Damaged where they leave SQLite, so
// that the layers above classify them without knowing SQLite. Every other
// error, the driver's own signals included, passes through unchanged.
func openSQL(dsn string) (*sql.DB, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(marking{c}), nil
}

// sqliteDamage is SQLite's corruption error, marked; its text is SQLite's.
type sqliteDamage struct{ err error }

func (d sqliteDamage) Error() string         { return d.err.Error() }
func (d sqliteDamage) Unwrap() error         { return d.err }
func (d sqliteDamage) FaultCode() fault.Code { return fault.Damaged }

// mark marks err when it is SQLite saying the file is corrupt.
func mark(err error) error {
	if isDamage(err) {
		return sqliteDamage{err}
	}
	return err
}

type marking struct{ driver.Connector }

func (m marking) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := m.Connector.Connect(ctx)
	if err != nil {
		return nil, mark(err)
	}
	return markingConn{c}, nil
}

// markingConn passes each call to SQLite's connection, which implements
// every interface it names.
type markingConn struct{ driver.Conn }

func (c markingConn) Prepare(query string) (driver.Stmt, error) {
	s, err := c.Conn.Prepare(query)
	if err != nil {
		return nil, mark(err)
	}
	return markingStmt{s}, nil
}

func (c markingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, mark(err)
	}
	return markingStmt{s}, nil
}

func (c markingConn) Begin() (driver.Tx, error) {
	t, err := c.Conn.Begin()
	if err != nil {
		return nil, mark(err)
	}
	return markingTx{t}, nil
}

func (c markingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	t, err := c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
	if err != nil {
		return nil, mark(err)
	}
	return markingTx{t}, nil
}

func (c markingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	if err != nil {
		return nil, mark(err)
	}
	return markingRows{r}, nil
}

func (c markingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
	return r, mark(err)
}

func (c markingConn) Ping(ctx context.Context) error {
	return mark(c.Conn.(driver.Pinger).Ping(ctx))
}

func (c markingConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

func (c markingConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

type markingStmt struct{ driver.Stmt }

func (s markingStmt) Exec(args []driver.Value) (driver.Result, error) {
	r, err := s.Stmt.Exec(args)
	return r, mark(err)
}

func (s markingStmt) Query(args []driver.Value) (driver.Rows, error) {
	r, err := s.Stmt.Query(args)
	if err != nil {
		return nil, mark(err)
	}
	return markingRows{r}, nil
}

func (s markingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	r, err := s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
	return r, mark(err)
}

func (s markingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
	if err != nil {
		return nil, mark(err)
	}
	return markingRows{r}, nil
}

type markingRows struct{ driver.Rows }

// Next passes io.EOF, which is no SQLite error, through as it is.
func (r markingRows) Next(dest []driver.Value) error { return mark(r.Rows.Next(dest)) }

type markingTx struct{ driver.Tx }

func (t markingTx) Commit() error   { return mark(t.Tx.Commit()) }
func (t markingTx) Rollback() error { return mark(t.Tx.Rollback()) }
