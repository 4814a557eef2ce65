"""What WeasyPrint's draw/ package paints on a page, in the order it paints it, as rectangles of a
colour: what page_text.py asks of every box but a text's ancestors' backgrounds, where it lies
under the text (a border the text overflows onto, a column rule, the text's own underline, a
float's or a table column's background) or over it (a box positioned over it, a later inline
box's background, any box's outline). It walks WeasyPrint's own stacking contexts
(weasyprint.stacking's, which draw_page builds again when it paints) as draw_stacking_context
does, steps 1 to 10 of CSS 2's appendix E, and records what each box paints where draw/ paints
it (painted_boxes.py). A collapsed table border counts as the cells' halves of it, in their own
colours. Building the contexts resets the boxes' remove_decoration_sides, as the paint does: a
layout's last use of them is over by then."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from notifications.documents.page_areas import box_clip, intersection, on_page, padding_box
from notifications.documents.painted_boxes import (
    Painting,
    State,
    background_paints,
    border_paints,
    box_paints,
    outline_paints,
    replaced_paints,
    text_paints,
)


def paint_order(page_box: Any) -> Painting:
    """The fills and texts of a laid-out page, as draw_page paints them."""
    from weasyprint.stacking import StackingContext

    painting = Painting(page_box.margin_height())
    sheet = State(None, (float("-inf"), float("-inf"), float("inf"), float("inf")), 1.0)
    background_paints(painting, page_box.background, sheet)
    background_paints(painting, page_box.canvas_background, sheet)
    border_paints(painting, page_box, sheet)
    _context(painting, StackingContext.from_page(page_box), sheet)
    return painting


def _context(painting: Painting, context: Any, outer: State) -> None:
    """A stacking context, as draw_stacking_context paints it."""
    from weasyprint.formatting_structure import boxes

    box, state = context.box, outer
    if box.is_for_root_element and context.page.style["overflow"] != "visible":
        state = replace(
            state, clip=intersection(state.clip, on_page(state.matrix, *padding_box(context.page)))
        )
    if (clip := box_clip(box)) is not None:
        state = replace(state, clip=intersection(state.clip, on_page(state.matrix, *clip)))
    matrix = box.transformation_matrix
    if matrix is not None:
        if not matrix.determinant:
            return
        state = replace(state, matrix=matrix @ state.matrix if state.matrix else matrix)
    state = replace(state, opacity=state.opacity * box.style["opacity"])
    painted = (boxes.BlockBox, boxes.MarginBox, boxes.InlineBlockBox, boxes.TableCellBox)
    if isinstance(box, (*painted, boxes.FlexContainerBox, boxes.GridContainerBox, boxes.ReplacedBox)):
        box_paints(painting, box, state)
    inner = state
    if box.style["overflow"] != "visible" and not isinstance(box, boxes.PageBox):
        inner = replace(state, clip=intersection(state.clip, on_page(state.matrix, *padding_box(box))))
    for child in context.negative_z_contexts:
        _context(painting, child, inner)
    for block in context.block_level_boxes:
        (_table if isinstance(block, boxes.TableBox) else box_paints)(painting, block, inner)
    for child in context.float_contexts:
        _context(painting, child, inner)
    if isinstance(box, boxes.InlineBox):
        _inline(painting, box, inner)
    _blocks(painting, {box: context.blocks_and_cells}, inner)
    for child in (*context.zero_z_contexts, *context.positive_z_contexts):
        _context(painting, child, inner)
    outline_paints(painting, box, state)


def _table(painting: Painting, table: Any, state: State) -> None:
    """As draw_table: every background of the table's parts, then their borders."""
    parts = [
        table,
        *table.column_groups,
        *(column for group in table.column_groups for column in group.children),
    ]
    cells = []
    for group in table.children:
        parts += [group, *group.children]
        cells += [cell for row in group.children for cell in row.children]
    collapsed = table.style["border_collapse"] == "collapse"
    shown = [cell for cell in cells if collapsed or cell.style["empty_cells"] == "show" or not cell.empty]
    for part in [*parts, *shown]:
        background_paints(painting, part.background, state)
    for part in [table, *shown]:
        border_paints(painting, part, state)


def _blocks(painting: Painting, blocks_and_cells: dict[Any, Any], state: State) -> None:
    """As draw_block_level: the lines of each block, in the tree's order."""
    from weasyprint.formatting_structure import boxes

    for block, inside in blocks_and_cells.items():
        if isinstance(block, boxes.ReplacedBox):
            replaced_paints(painting, block, state)
        elif block.children and isinstance(block.children[-1], boxes.LineBox):
            for child in block.children:
                _inline(painting, child, state)
        _blocks(painting, inside, state)


def _inline(painting: Painting, box: Any, state: State) -> None:
    """As draw_inline_level: an inline box's background and border, then what it holds."""
    from weasyprint.formatting_structure import boxes
    from weasyprint.stacking import StackingContext

    if isinstance(box, StackingContext):
        _context(painting, box, state)
    elif isinstance(box, boxes.TextBox):
        text_paints(painting, box, state)
    else:
        box_paints(painting, box, state)
        if isinstance(box, boxes.InlineReplacedBox):
            replaced_paints(painting, box, state)
        for child in box.children if isinstance(box, (boxes.InlineBox, boxes.LineBox)) else ():
            _inline(painting, child, state)
