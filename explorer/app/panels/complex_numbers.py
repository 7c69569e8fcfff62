"""The complex-numbers page's figures: the quarter turn by i, the product z·w and the rotor's turn and way
back, each a view's Diagram on the complex plane's axes."""

from __future__ import annotations

from explorer.app.place import labelled
from explorer.app.session import t
from explorer.pure.figures import plane_diagram
from explorer.pure.views import complex_numbers as view


def diagram(drawn: view.Diagram, title: str):
    """plane_diagram of a view's points and arcs (and dashed arrows), on the complex plane's axes."""
    return plane_diagram(labelled(drawn.points), arcs=tuple(labelled(drawn.arcs)),
                         dashes=dict(labelled(drawn.dashes)), title=title,
                         x_title=t("complex_numbers.re_axis"), y_title=t("complex_numbers.im_axis"))


def quarter(turn: view.QuarterTurn):
    """z and i·z with the +90° arc."""
    return diagram(view.quarter_diagram(turn), t("complex_numbers.i_title"))


def product(prod: view.Product):
    """z, w and z·w with the arcs of their angles."""
    return diagram(view.product_diagram(prod), t("complex_numbers.product_title"))


def rotor(turn: view.RotorTurn, theta_deg: float):
    """z turned by e^{iθ} and back, with the θ arc."""
    return diagram(view.rotor_diagram(turn), t("complex_numbers.rotor_title", deg=theta_deg))
