"""Export file names: the page, the chart and the page's own knobs, nothing that could be a path or markup."""

from explorer.pure.exports import file_name


def test_file_name_names_the_page_and_its_knobs_only():
    name = file_name("relative_attention", "scores", {"present": "1", "lang": "zh", "seq": "128", "dim": "64"})
    assert name == "relative-attention-scores-seq=128_dim=64"


def test_file_name_keeps_no_path_or_markup():
    name = file_name("relative_attention", "scores", {"seq": "../../<b>x</b>"})
    assert "/" not in name and "<" not in name and ">" not in name
    assert name.startswith("relative-attention-scores-seq=")


def test_file_name_of_a_page_without_knobs():
    assert file_name("home", "clocks", {"present": "1"}) == "home-clocks"
