"""One parser per input language (issue 25, item 1): what the CLI accepts, the API accepts, read the same way."""

import pytest

from algebra.cli.geometry import MODEL_FAMILIES
from algebra.errors import InputError
from algebra.models import CNN, MLP, PolynomialMap
from algebra.cli import build_parser


def _cli_model(argv):
    args = build_parser().parse_args(["dim", *argv])
    return MODEL_FAMILIES[argv[0]].build(args)


def test_mlp_takes_the_cli_activation_text():
    api = MLP((3, 3, 3, 2), "t^2;t^3")
    cli = _cli_model(["mlp", "--widths", "3,3,3,2", "--activation", "t^2;t^3"])
    assert api.activations == cli.activations
    assert [len(a) - 1 for a in api.activations] == [2, 3]


def test_api_refusal_names_the_api_argument_not_the_option():
    with pytest.raises(InputError) as exc:
        MLP((3, 3, 3, 2), "t^2;t^3;t")
    assert exc.value.argument == "activations"
    with pytest.raises(InputError) as exc:
        _cli_model(["mlp", "--widths", "3,3,3,2", "--activation", "t^2;t^3;t"])
    assert exc.value.argument == "--activation"


def test_cnn_takes_the_same_activation_text():
    api = CNN(6, [2, 2], channels=(1, 2, 1), activations="t^2")
    cli = _cli_model(["cnn", "--input", "6", "--filters", "2,2", "--channels", "1,2,1", "--activation", "t^2"])
    assert api.activations == cli.activations


def test_polynomial_map_parameters_text_is_split_on_commas_not_into_characters():
    m = PolynomialMap(["a*c", "a*d"], parameters="a,c,d")
    assert m.parameters == ("a", "c", "d")
    cli = _cli_model(["polynomial", "a*c", "a*d", "--parameters", "a,c,d"])
    assert cli.parameters == m.parameters
    with pytest.raises(InputError) as exc:
        PolynomialMap(["ab*c"], parameters="ab,c,")
    assert exc.value.argument == "parameters"


def test_top_level_help_documents_the_exit_statuses(capsys):
    from algebra.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for status in ("0  success", "1  a decided negative answer", "2  the command was refused"):
        assert status in out
    assert main(["dim", "mlp", "--widths", "3,0,1"]) == 2   # the documented 2 for bad input
