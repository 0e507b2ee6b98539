package parser

// Inspect traverses the tree rooted at n in depth-first order, calling f for
// each node; when f returns false the node's children are skipped.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	for _, c := range Children(n) {
		Inspect(c, f)
	}
}

// add appends the non-nil nodes among ns.
func add[T interface {
	comparable
	Node
}](out []Node, ns ...T) []Node {
	var zero T
	for _, n := range ns {
		if n != zero {
			out = append(out, n)
		}
	}
	return out
}

// Children returns the direct children of n in source order.
func Children(n Node) []Node {
	var c []Node
	switch n := n.(type) {
	case *CreateTable:
		c = add(c, n.Name)
		c = add(c, n.Columns...)
		c = add(c, n.Watermark)
		c = add(c, n.PrimaryKey)
		c = add(c, n.Comment)
		c = add(c, n.PartitionBy...)
		c = add(c, n.Options...)
		c = add(c, n.Like)
	case *TableLike:
		c = add(c, n.Source)
		c = add(c, n.Options...)
	case *StatementSet:
		c = add(c, n.Inserts...)
	case *ColumnDef:
		c = add(c, n.Type)
		c = add(c, n.Expr)
		c = add(c, n.MetadataKey, n.Comment)
	case *Watermark:
		c = add(c, n.Column)
		c = add(c, n.Expr)
	case *PrimaryKey:
		c = add(c, n.Columns...)
	case *CreateView:
		c = add(c, n.Name)
		c = add(c, n.Columns...)
		c = add(c, n.Query)
	case *CreateFunction:
		c = add(c, n.Name)
		c = add(c, n.Class)
	case *Insert:
		c = add(c, n.Table)
		c = add(c, n.Hints...)
		c = add(c, n.Columns...)
		c = add(c, n.Query)
	case *Set:
		c = add(c, n.Option)
	case *Reset:
		c = add(c, n.Key)
	case *Explain:
		c = add(c, n.Details...)
		c = add(c, n.Statement)
	case *Describe:
		c = add(c, n.Name)
	case *DropTable:
		c = add(c, n.Name)
	case *DropView:
		c = add(c, n.Name)
	case *DropFunction:
		c = add(c, n.Name)
	case *Select:
		c = add(c, n.With...)
		c = add(c, n.Hints...)
		c = add(c, n.Items...)
		c = add(c, n.From)
		c = add(c, n.Where)
		c = add(c, n.GroupBy...)
		c = add(c, n.Having)
		c = add(c, n.Windows...)
		c = add(c, n.OrderBy...)
		c = add(c, n.Limit)
	case *SetOp:
		c = add(c, n.With...)
		c = add(c, n.Left, n.Right)
		c = add(c, n.OrderBy...)
		c = add(c, n.Limit)
	case *Values:
		c = add(c, n.With...)
		for _, row := range n.Rows {
			c = add(c, row...)
		}
		c = add(c, n.OrderBy...)
		c = add(c, n.Limit)
	case *CTE:
		c = add(c, n.Columns...)
		c = add(c, n.Query)
	case *SelectItem:
		c = add(c, n.Expr)
	case *OrderItem:
		c = add(c, n.Expr)
	case *TableRef:
		c = add(c, n.Name)
		c = add(c, n.Hints...)
		c = add(c, n.AsOf)
	case *Hint:
		c = add(c, n.Options...)
	case *HintOption:
		c = add(c, n.Key, n.Value)
	case *Subquery:
		c = add(c, n.Query)
	case *Unnest:
		c = add(c, n.Exprs...)
		c = add(c, n.Columns...)
	case *TableFunc:
		c = add(c, n.Args...)
	case *TableFuncArg:
		c = add(c, n.Table)
		c = add(c, n.PartitionBy...)
		c = add(c, n.Descriptor...)
		c = add(c, n.Expr)
	case *Join:
		c = add(c, n.Left, n.Right)
		c = add(c, n.On)
	case *Unary:
		c = add(c, n.Expr)
	case *Binary:
		c = add(c, n.Left, n.Right)
	case *Call:
		c = add(c, n.Args...)
		c = add(c, n.Filter)
		c = add(c, n.Over)
	case *GroupingElement:
		c = add(c, n.Items...)
	case *NamedWindow:
		c = add(c, n.Window)
	case *Window:
		c = add(c, n.PartitionBy...)
		c = add(c, n.OrderBy...)
		c = add(c, n.Frame)
	case *Frame:
		c = add(c, n.Lo, n.Hi)
	case *FrameBound:
		c = add(c, n.Offset)
	case *Cast:
		c = add(c, n.Expr)
		c = add(c, n.Type)
	case *Case:
		c = add(c, n.Operand)
		c = add(c, n.Whens...)
		c = add(c, n.Else)
	case *When:
		c = add(c, n.Cond, n.Result)
	case *IsNull:
		c = add(c, n.Expr)
	case *IsBool:
		c = add(c, n.Expr)
	case *Between:
		c = add(c, n.Expr, n.Lo, n.Hi)
	case *InList:
		c = add(c, n.Expr)
		c = add(c, n.List...)
	case *InQuery:
		c = add(c, n.Expr)
		c = add(c, n.Query)
	case *Exists:
		c = add(c, n.Query)
	case *ScalarQuery:
		c = add(c, n.Query)
	case *Like:
		c = add(c, n.Expr, n.Pattern, n.Escape)
	case *Extract:
		c = add(c, n.Expr)
	case *FloorCeil:
		c = add(c, n.Expr)
	case *Substring:
		c = add(c, n.Expr, n.From, n.For)
	case *Trim:
		c = add(c, n.Chars, n.Expr)
	case *Position:
		c = add(c, n.Substr, n.Expr)
	case *Subscript:
		c = add(c, n.Expr, n.Index)
	case *Dot:
		c = add(c, n.Expr)
	case *Constructor:
		c = add(c, n.Args...)
	case *TypeName:
		c = add(c, n.Elems...)
		c = add(c, n.Fields...)
	case *Field:
		c = add(c, n.Type)
		c = add(c, n.Comment)
	}
	return c
}
