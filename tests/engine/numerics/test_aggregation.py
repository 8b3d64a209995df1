"""FedAvg weighted average on two tiny clients, numbers asserted exactly."""
import pytest
import torch

from fedquad_core.numerics.aggregation import weighted_average


def _clients():
    a = {"w": torch.tensor([1.0, 2.0]), "b": torch.tensor([[4.0]]), "bn.num_batches_tracked": torch.tensor(7)}
    b = {"w": torch.tensor([3.0, 6.0]), "b": torch.tensor([[0.0]]), "bn.num_batches_tracked": torch.tensor(30)}
    return a, b


def test_two_clients_by_hand():
    a, b = _clients()
    # 1 and 3 examples -> weights 1/4 and 3/4
    # w = (1*[1,2] + 3*[3,6]) / 4 = [10, 20] / 4 = [2.5, 5.0] ; b = (1*4 + 3*0) / 4 = 1.0
    out = weighted_average([a, b], [1, 3])
    assert torch.equal(out["w"], torch.tensor([2.5, 5.0]))
    assert torch.equal(out["b"], torch.tensor([[1.0]]))
    # integer buffers are copied from the first state, not averaged
    assert torch.equal(out["bn.num_batches_tracked"], torch.tensor(7))
    assert out["w"].dtype == torch.float32 and out["bn.num_batches_tracked"].dtype == torch.int64


def test_weights_are_normalised():
    a, b = _clients()
    for scaled in ([2, 6], [0.25, 0.75], [100.0, 300.0]):
        out = weighted_average([a, b], scaled)
        assert torch.equal(out["w"], torch.tensor([2.5, 5.0]))


def test_zero_weight_client_is_ignored_and_result_is_a_copy():
    a, b = _clients()
    out = weighted_average([a, b], [5, 0])
    assert torch.equal(out["w"], a["w"]) and out["w"] is not a["w"]
    out["w"].add_(1.0)
    assert torch.equal(a["w"], torch.tensor([1.0, 2.0]))


def test_dtype_is_kept():
    a = {"h": torch.tensor([1.0, 3.0], dtype=torch.float16)}
    b = {"h": torch.tensor([3.0, 5.0], dtype=torch.float16)}
    out = weighted_average([a, b], [1, 1])
    assert out["h"].dtype == torch.float16 and torch.equal(out["h"], torch.tensor([2.0, 4.0], dtype=torch.float16))


def test_equal_states_average_to_themselves_exactly():
    torch.manual_seed(0)
    s = {"w": torch.randn(5, 3)}
    out = weighted_average([s, {"w": s["w"].clone()}, {"w": s["w"].clone()}], [3, 5, 11])
    assert torch.equal(out["w"], s["w"])


@pytest.mark.parametrize(
    "states, weights, fragment",
    [
        ([], [], "at least one"),
        ([{"w": torch.ones(1)}], [0], "total weight"),
        ([{"w": torch.ones(1)}, {"w": torch.ones(1)}], [0, 0.0], "total weight"),
        ([{"w": torch.ones(1)}], [-1], ">= 0"),
        ([{"w": torch.ones(1)}], [float("nan")], "finite"),
        ([{"w": torch.ones(1)}], [1, 2], "weights"),
        ([{"w": torch.ones(1)}, {"v": torch.ones(1)}], [1, 1], "keys"),
        ([{"w": torch.ones(2)}, {"w": torch.ones(3)}], [1, 1], "shape"),
    ],
)
def test_bad_input_raises_value_error(states, weights, fragment):
    with pytest.raises(ValueError, match=fragment):
        weighted_average(states, weights)
