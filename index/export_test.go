package index

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"
	"sync"

	"modernc.org/sqlite"
)

// StatementLog records the SQL statements a reader runs.
type StatementLog struct {
	mu    sync.Mutex
	stmts []string
}

// Take returns the statements run since the last Take, and forgets them.
func (l *StatementLog) Take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.stmts
	l.stmts = nil
	return out
}

func (l *StatementLog) add(query string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stmts = append(l.stmts, strings.Join(strings.Fields(query), " "))
}

// OpenLoggingReader opens the index at path as OpenReader does, through a
// driver that logs every statement it is asked to run.
func OpenLoggingReader(ctx context.Context, path string) (*Reader, *StatementLog, error) {
	log := &StatementLog{}
	db := sql.OpenDB(loggingConnector{dsn: dsn(path, "mode=ro", "_pragma=busy_timeout(10000)", "_pragma=query_only(1)"), log: log})
	r := &Reader{DB: DB{db: db, path: path}}
	if err := r.init(ctx); err != nil {
		r.Close()
		return nil, nil, err
	}
	log.Take()
	return r, log, nil
}

type loggingConnector struct {
	dsn string
	log *StatementLog
}

func (c loggingConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := (&sqlite.Driver{}).Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return loggingConn{conn, c.log}, nil
}

func (c loggingConnector) Driver() driver.Driver { return &sqlite.Driver{} }

// loggingConn logs each statement where database/sql hands it over: to
// the connection directly, or to a prepared statement when it runs.
type loggingConn struct {
	driver.Conn
	log *StatementLog
}

func (c loggingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.log.add(query)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

func (c loggingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.log.add(query)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

func (c loggingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return loggingStmt{s, query, c.log}, nil
}

func (c loggingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

type loggingStmt struct {
	driver.Stmt
	query string
	log   *StatementLog
}

func (s loggingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.log.add(s.query)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func (s loggingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.log.add(s.query)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}
