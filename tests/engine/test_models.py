import pytest
import torch

from fedquad_core.models import build_model


@pytest.mark.parametrize("name,shape,dim", [
    ("mlp", (64,), 64), ("cnn", (1, 28, 28), 84), ("cnn", (3, 32, 32), 84),
    ("resnet18", (3, 32, 32), 512), ("resnet18", (3, 64, 64), 512),
])
def test_model_exposes_the_embedding_its_classifier_reads(name, shape, dim):
    model = build_model(name, shape, 7, generator=torch.Generator().manual_seed(0)).eval()
    x = torch.randn(3, *shape)
    logits, emb = model(x)
    assert logits.shape == (3, 7) and emb.shape == (3, dim)
    torch.testing.assert_close(logits, model.classifier(emb))
    torch.testing.assert_close(emb, model.embed(x))


def test_simple_cnn_has_the_niid_bench_layer_sizes():
    model = build_model("cnn", (3, 32, 32), 10)
    linears = [m for m in model.backbone if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linears] == [(400, 120), (120, 84)]
    model = build_model("cnn", (1, 28, 28), 10)
    assert [m.in_features for m in model.backbone if isinstance(m, torch.nn.Linear)][0] == 256


def test_resnet_uses_groupnorm_not_batchnorm():
    model = build_model("resnet18", (3, 32, 32), 100)
    kinds = {type(m).__name__ for m in model.modules()}
    assert "GroupNorm" in kinds and "BatchNorm2d" not in kinds


def test_same_generator_seed_same_backbone_with_and_without_projection_head():
    a = build_model("mlp", (64,), 10, generator=torch.Generator().manual_seed(5))
    b = build_model("mlp", (64,), 10, generator=torch.Generator().manual_seed(5), proj_dim=32)
    for key, value in a.backbone.state_dict().items():
        assert torch.equal(value, b.backbone.state_dict()[key])  # the head does not shift the backbone's init


def test_projection_head_sits_between_backbone_and_classifier_as_in_moon_reference():
    """MOON's ModelFedCon: features -> Linear(d,d)-ReLU-Linear(d,proj) -> classifier on the projection."""
    model = build_model("cnn", (1, 28, 28), 10, proj_dim=256, generator=torch.Generator().manual_seed(0)).eval()
    x = torch.randn(3, 1, 28, 28)
    logits, emb = model(x)
    head = [m for m in model.projection if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in head] == [(84, 84), (84, 256)]
    assert isinstance(model.projection[1], torch.nn.ReLU) and len(model.projection) == 3
    assert (model.classifier.in_features, emb.shape) == (256, (3, 256))
    torch.testing.assert_close(emb, model.projection(model.backbone(x)))
    torch.testing.assert_close(logits, model.classifier(emb))


def test_image_model_on_flat_input_says_what_to_use():
    with pytest.raises(ValueError, match="--model mlp"):
        build_model("cnn", (64,), 10)
